import { join } from 'node:path';
import type { Decision } from '../../deciders/decision.js';
import {
  DEEP_DIVE_FILE,
  flowProjection,
  latestFlow,
  renderDeepDiveFile,
  renderFlowFile,
  STATE_FILE,
  type FlowRecord,
  type FlowState,
} from '../../projections/flow/index.js';
import { withArtifactLock } from '../artifacts/artifact-lock.js';
import { FileAccess, readIfFile, writeIfChanged } from '../artifacts/atomic-write.js';
import type { AppContext } from '../app/context.js';
import { BatonError, ErrorCode } from '../errors.js';
import type { SessionClock } from '../../projections/coordination/liveness.js';
import { coordinationStateProjection } from '../../projections/coordination/roster.js';
import { clockOf } from '../../projections/coordination/sessions.js';
import { handleCommand } from '../store/handle-command.js';
import { runProjection, runProjections } from '../store/projection-runner.js';
import type { EventStore } from '../store/contract.js';
import { isActiveAgentFlowRun } from './agent-flow-file.js';
import { editedOutside, rememberRendering } from './state-file-memory.js';

/** The shell around the pure flow core: fold the log, append a decision, write the state files. */
export async function foldFlows(ctx: AppContext): Promise<FlowState> {
  const store = await ctx.store();
  const run = await runProjection(store, flowProjection, { catalog: await ctx.catalog(), cacheDir: await ctx.cacheDir(), now: ctx.now });
  return run.state;
}

/**
 * A flow command through the one command handler: the guard streams' versions are read before the
 * fold (an append that lands between the two reads then either shows in the fold or makes this
 * decision's expected version stale, a conflict, never neither); the decider answers the facts to
 * append; a conflict reads and decides again (up to 3 retries, then CONFLICT, exit 4). The log is
 * read once per attempt: the acting session's liveness facts come from the same pass as the flows.
 */
interface FlowRead {
  state: FlowState;
  versions: Readonly<Record<string, number>>;
  clock: SessionClock | undefined;
}

/** The flows, and the acting session's liveness facts when a session acts, in one pass over the log. */
async function readFlows(ctx: AppContext, store: EventStore, session: string | undefined): Promise<{ state: FlowState; clock: SessionClock | undefined }> {
  if (session === undefined) return { state: await foldFlows(ctx), clock: undefined };
  const [flows, coordination] = await runProjections(store, [flowProjection, coordinationStateProjection] as const, {
    catalog: await ctx.catalog(),
    cacheDir: await ctx.cacheDir(),
    now: ctx.now,
  });
  const record = coordination.state.sessions.get(session);
  return { state: flows.state, clock: record === undefined ? undefined : clockOf(record) };
}

export async function decideAndAppend<R>(
  ctx: AppContext,
  decide: (state: FlowState, versions: Readonly<Record<string, number>>) => Decision<R>,
  guards: readonly string[] = [],
): Promise<{ result: R; appended: boolean; state: FlowState }> {
  const store = await ctx.store();
  // The flow fold holds no sessions: the acting session's liveness facts are read with it.
  const session = ctx.session;
  const handled = await handleCommand(
    {
      store,
      catalog: await ctx.catalog(),
      actor: ctx.actor,
      now: ctx.now,
      read: async () => {
        const versions: Record<string, number> = {};
        for (const stream of guards) versions[stream] = await store.streamVersion(stream);
        const read: FlowRead = { ...(await readFlows(ctx, store, session)), versions };
        return read;
      },
      acting: session === undefined ? undefined : { session, name: ctx.sessionSource?.(), clock: (read: FlowRead) => read.clock },
    },
    ({ state, versions }) => decide(state, versions),
  );
  // The state as the decision read it: the flows after the command when it appended nothing.
  return { result: handled.decision!.outcome, appended: handled.appended.length > 0, state: handled.state.state };
}

/** Whether rendering this ended flow would overwrite a running Agent Flow run someone else wrote in its file. */
async function replacesAgentFlowRun(ctx: AppContext, workspace: string, record: FlowRecord, rendering: string): Promise<boolean> {
  if (record.context.status === 'active') return false;
  const rel = STATE_FILE[record.context.variant];
  const bytes = readIfFile(workspace, join(workspace, rel));
  if (bytes === undefined || !(await editedOutside(ctx, rel, bytes, rendering))) return false;
  return isActiveAgentFlowRun(bytes.toString('utf8')) !== null;
}

export const StateFileKind = { flow: 'flow', deepDive: 'deep_dive' } as const;
export type StateFileKind = (typeof StateFileKind)[keyof typeof StateFileKind];

/**
 * Render the files of `kinds` from the log head read under the artifact lock, and replace each
 * only when its content changed. A flow that has ended never replaces an Agent Flow run started
 * in its file since (`flow adopt` takes that over). A failure after the append is R5's UNEXPECTED.
 */
export async function syncStateFiles(ctx: AppContext, kinds: readonly StateFileKind[]): Promise<FlowState> {
  const workspace = await ctx.workspace();
  try {
    return await withArtifactLock(workspace, async () => {
      const state = await foldFlows(ctx);
      const record = latestFlow(state);
      const content = record === null ? '' : renderFlowFile(record);
      if (kinds.includes(StateFileKind.flow) && record !== null && !(await replacesAgentFlowRun(ctx, workspace, record, content))) {
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
