import { decidePrepOverride } from '../../deciders/prep.js';
import { runPrepGate, type PrepGateResult } from '../../projections/coordination/prep-gate.js';
import { BatonError, ErrorCode, invalidField } from '../errors.js';
import { handleCommand } from '../store/handle-command.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import { actingIn } from './acting.js';
import { actorOf, loadState, type CoordinationEnv } from './env.js';
import { CoordinationErrorCode } from './errors.js';
import { readFilter } from './settings.js';

/**
 * The `wu prep` directed-signal gate with its audited override (coordination.md §10). The full
 * `wu prep` (work-units.md §13) runs this as check 3 and calls `recordOverride` only when every
 * later check passed too.
 */
export interface SignalGateOutcome extends PrepGateResult {
  /** Signals waived by the override (empty when the gate passed on its own). */
  overridden_signal_ids: string[];
}

export interface OverrideRequest {
  allow: boolean;
  reason: string | undefined;
}

/** The override's inputs (`allow_unread_signals`, `reason`): both or neither, the reason 1–500 characters. */
export function checkOverrideFlags(request: OverrideRequest): void {
  if (request.allow !== (request.reason !== undefined)) {
    const field = request.allow ? 'reason' : 'allow_unread_signals';
    const say = (name: string, allow: string, reason: string): string => `${name}: ${allow} and ${reason} go together (give both or neither)`;
    throw new BatonError(
      ErrorCode.INVALID_INPUT,
      say(field, 'allow_unread_signals', 'reason'),
      { field },
      { field, say, others: ['allow_unread_signals', 'reason'] },
    );
  }
  if (request.reason !== undefined && (request.reason.trim().length === 0 || request.reason.length > 500)) {
    throw invalidField('must be 1–500 characters (not blank)', 'reason');
  }
}

/**
 * Fail-closed: a log that cannot be read is an integrity failure (exit 3), never a pass. `state`:
 * the coordination fold the caller already read in its one pass (then the gate reads nothing).
 */
export async function signalGate(env: CoordinationEnv, wuId: string, request: OverrideRequest, state?: CoordinationState): Promise<SignalGateOutcome> {
  checkOverrideFlags(request);
  return signalGateOn(state ?? (await loadGateState(env)), env, wuId, request);
}

async function loadGateState(env: CoordinationEnv): Promise<CoordinationState> {
  try {
    return (await loadState(env)).state;
  } catch (error) {
    if (error instanceof BatonError && error.exitCode !== 3) throw error;
    throw new BatonError(ErrorCode.LOG_CORRUPT, `the signal gate cannot read the log: ${(error as Error).message}`);
  }
}

function signalGateOn(state: CoordinationState, env: CoordinationEnv, wuId: string, request: OverrideRequest): SignalGateOutcome {
  if (!state.wus.has(wuId)) throw new BatonError(ErrorCode.UNKNOWN_ID, `WU ${wuId} not found`, { wu_id: wuId });
  const result = runPrepGate(state, wuId, env.session, readFilter(env.settings));
  if (result.passed) return { ...result, overridden_signal_ids: [] };
  if (request.allow) return { ...result, passed: true, overridden_signal_ids: result.signals.map((s) => s.signal_id) };
  const list = result.signals.map((s) => `${s.signal_id} from ${s.sender_identity} (${s.intent}${s.requires_ack ? ', ACK required' : ''})`).join('; ');
  throw new BatonError(
    CoordinationErrorCode.UNREAD_DIRECTED_SIGNALS,
    `${result.signals.length} unread directed signal(s) for ${String(result.reader_identity)} about ${wuId}: ${list}. Read them (baton mem inbox) and answer, or pass --allow-unread-signals --reason R`,
    { wu_id: wuId, reader_identity: result.reader_identity, signals: result.signals },
  );
}

/**
 * Append `wu.prep_overridden` once the rest of `wu prep` passed (deciders/prep.ts). The waived
 * signals stay unread. `state`: the coordination fold the gate read, used for the first decision
 * (a retry after a conflict reads the log again).
 */
export async function recordOverride(
  env: CoordinationEnv,
  wuId: string,
  outcome: SignalGateOutcome,
  reason: string,
  state?: CoordinationState,
): Promise<number | null> {
  type Read = { gate: SignalGateOutcome; coordination: CoordinationState };
  let given = state;
  const read = async (): Promise<Read> => {
    const coordination = given ?? (await loadState(env)).state;
    given = undefined;
    return { gate: outcome, coordination };
  };
  const io = { store: env.store, catalog: env.catalog, actor: actorOf(env), now: env.now, read, acting: actingIn(env, (s: Read) => s.coordination) };
  const handled = await handleCommand(io, ({ gate }) => decidePrepOverride({ wuId, reason, gate }));
  return handled.appended[0]?.seq ?? null;
}
