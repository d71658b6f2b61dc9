import { INVALID } from '../../events/compiled.js';
import { ReceiptVia, SYSTEM_IDENTITY, THREAD_ID_PATTERN } from '../../events/coordination/vocabulary.js';
import { convergenceView, type ConvergenceView } from '../../projections/coordination/convergence.js';
import { actingIdentity } from '../../projections/coordination/sessions.js';
import { inboxRecords, inboxView, type InboxView } from '../../projections/coordination/signals.js';
import type { CoordinationState } from '../../projections/coordination/state.js';
import { BatonError, ErrorCode, invalidField } from '../errors.js';
import { InboxInput as CompiledInboxInput } from '../validators.generated.js';
import { actingIn } from './acting.js';
import { actorOf, loadState, type CoordinationEnv } from './env.js';
import type { InboxInput, InboxOptions } from './inbox-input.js';
import { parseInput } from './parse-input.js';
import { recordReceipts } from './record-receipts.js';
import { resolveRecipients } from './recipients.js';
import { readFilter } from './settings-values.js';

/**
 * `mem inbox` (§7.3) and `mem converged` (§8). Reading loads no zod: the input is checked by its
 * compiled validator, and only input that fails it loads the schema (inbox-input.ts) for the error.
 */
export type { InboxInput } from './inbox-input.js';

async function parseInboxInput(raw: InboxInput): Promise<InboxOptions> {
  const fast = CompiledInboxInput.parse(raw);
  if (fast !== INVALID) return fast;
  return parseInput((await import('./inbox-input.js')).InboxInput, raw);
}

/** The reader of an inbox: `for` resolved, else the acting identity unless system; null = observer mode. */
function inboxReader(state: CoordinationState, env: CoordinationEnv, forToken: string | undefined): string | null {
  if (forToken !== undefined) return resolveRecipients(state, env.now, [forToken], 'for')[0]!;
  const acting = actingIdentity(state, env.session, env.envIdentity);
  return acting === SYSTEM_IDENTITY ? null : acting;
}

export async function readInbox(env: CoordinationEnv, raw: InboxInput): Promise<InboxView> {
  const input = await parseInboxInput(raw);
  const { state } = await loadState(env);
  if (env.session !== undefined && !state.sessions.has(env.session)) {
    const message = `Session ${env.session} not found`;
    throw new BatonError(ErrorCode.UNKNOWN_ID, message, { field: 'session', session_id: env.session }, { field: 'session', say: () => message });
  }
  const reader = inboxReader(state, env, input.for);
  const acting = actingIdentity(state, env.session, env.envIdentity);
  const query = { reader, thread: input.thread, intents: input.intent, wu: input.wu, all: input.all || reader === null, workspace: readFilter(env.settings) };
  const view = inboxView(state, env.now, query, { session_id: env.session ?? null });
  // A session reading for another identity never marks that identity's signals.
  const mayMark = input.mark && reader !== null && (acting === SYSTEM_IDENTITY || acting === reader);
  if (!mayMark) return view;
  const unread = inboxRecords(state, { ...query, all: false });
  if (unread.length > 0) {
    const shown = { signalIds: unread.map((r) => r.data.signal_id), reader, session: env.session ?? null, via: ReceiptVia.inbox };
    await recordReceipts(
      { store: env.store, catalog: env.catalog, actor: actorOf(env), now: env.now, acting: actingIn(env, (s: CoordinationState) => s) },
      state,
      shown,
    );
  }
  return { ...view, marked: unread.length };
}

export async function threadConvergence(env: CoordinationEnv, thread: string): Promise<ConvergenceView> {
  if (typeof thread !== 'string' || !THREAD_ID_PATTERN.test(thread)) {
    // The schema words the error (a thread id that is a string can only fail its pattern).
    const parsed = (await import('../../events/coordination/identities.js')).threadId.safeParse(thread);
    if (!parsed.success) throw invalidField(parsed.error.issues[0]!.message, 'thread');
  }
  const { state } = await loadState(env);
  const view = convergenceView(state, env.now, thread, readFilter(env.settings));
  if (!view)
    throw new BatonError(
      ErrorCode.UNKNOWN_ID,
      `Thread ${thread} not found`,
      { field: 'thread', thread_id: thread },
      { field: 'thread', say: () => `Thread ${thread} not found` },
    );
  return view;
}
