import { join } from 'node:path';
import type { NewEvent } from '../../events/envelope.js';
import { DEEP_DIVE_FILE, flowProjection, latestFlow, renderDeepDiveFile, renderFlowFile, STATE_FILE, type FlowState } from '../../projections/flow/index.js';
import { withArtifactLock } from '../artifacts/artifact-lock.js';
import { FileAccess, writeIfChanged } from '../artifacts/atomic-write.js';
import type { CommandContext } from '../cli/context.js';
import { BatonError, ErrorCode } from '../errors.js';
import type { ExpectedVersion } from '../store/contract.js';
import { runProjection } from '../store/projection-runner.js';
import { rememberRendering } from './state-file-memory.js';

/** The shell around the pure flow core: fold the log, append a decision, write the state files. */
export async function foldFlows(ctx: CommandContext): Promise<FlowState> {
  const store = await ctx.store();
  const run = await runProjection(store, flowProjection, { catalog: await ctx.catalog(), cacheDir: await ctx.cacheDir(), now: ctx.now });
  return run.state;
}

export interface Decision<R> {
  events: NewEvent[];
  expectedVersion: Record<string, ExpectedVersion>;
  result: R;
}

const ATTEMPTS = 4;

/**
 * Decide on the state read, append with that state's stream version; on a conflict another process
 * appended in between, so read again and decide again (up to 3 retries, then CONFLICT, exit 4).
 */
export async function decideAndAppend<R>(
  ctx: CommandContext,
  decide: (state: FlowState, versions: Readonly<Record<string, number>>) => Decision<R>,
  guards: readonly string[] = [],
): Promise<{ result: R; appended: boolean }> {
  const store = await ctx.store();
  for (let attempt = 1; ; attempt++) {
    // Guard streams are read before the fold: an append that lands between the two reads then
    // either shows in the fold or makes this decision's expected version stale (a conflict), never
    // neither.
    const versions: Record<string, number> = {};
    for (const stream of guards) versions[stream] = await store.streamVersion(stream);
    const state = await foldFlows(ctx);
    const decision = decide(state, versions);
    if (decision.events.length === 0) return { result: decision.result, appended: false };
    try {
      await store.append(decision.events, { expectedVersion: decision.expectedVersion });
      return { result: decision.result, appended: true };
    } catch (error) {
      if (error instanceof BatonError && error.code === ErrorCode.CONFLICT && attempt < ATTEMPTS) continue;
      throw error;
    }
  }
}

export const StateFileKind = { flow: 'flow', deepDive: 'deep_dive' } as const;
export type StateFileKind = (typeof StateFileKind)[keyof typeof StateFileKind];

/**
 * Render the files of `kinds` from the log head read under the artifact lock, and replace each
 * only when its content changed. A failure after the append is R5's UNEXPECTED.
 */
export async function syncStateFiles(ctx: CommandContext, kinds: readonly StateFileKind[]): Promise<FlowState> {
  const workspace = await ctx.workspace();
  try {
    return await withArtifactLock(workspace, async () => {
      const state = await foldFlows(ctx);
      const record = latestFlow(state);
      if (kinds.includes(StateFileKind.flow) && record !== null) {
        const content = renderFlowFile(record);
        writeIfChanged(workspace, join(workspace, STATE_FILE[record.context.variant]), content, FileAccess.shared);
        await rememberRendering(ctx, STATE_FILE[record.context.variant], content);
      }
      if (kinds.includes(StateFileKind.deepDive) && state.deep_dive !== null) {
        const content = renderDeepDiveFile(state.deep_dive);
        writeIfChanged(workspace, join(workspace, DEEP_DIVE_FILE), content, FileAccess.shared);
        await rememberRendering(ctx, DEEP_DIVE_FILE, content);
      }
      return state;
    });
  } catch (error) {
    if (error instanceof BatonError && error.code !== ErrorCode.UNEXPECTED) throw error;
    throw new BatonError(
      ErrorCode.UNEXPECTED,
      `The log is updated, but a state file could not be written (${(error as Error).message}); it will be rewritten by the next flow command or baton flow status.`,
    );
  }
}
