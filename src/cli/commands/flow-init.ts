import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { FlowEventType, type FlowStartedData } from '../../../events/flow/flow-events.js';
import { FLOW_REGISTRY_STREAM, FlowRegistryEventType, type FlowRegisteredData } from '../../../events/flow/flow-registry-events.js';
import { FlowStatus, MAX_TASK_LENGTH, Mode, Variant } from '../../../events/flow/vocabulary.js';
import { FlowStatusEnvelope, flowStatusEnvelope, renderFlowFile, STATE_FILE, type FlowState } from '../../../projections/flow/index.js';
import { readIfFile } from '../../artifacts/atomic-write.js';
import { backupFile } from '../../artifacts/backup-file.js';
import { ErrorCode } from '../../errors.js';
import { FlowErrorCode, refuse } from '../../flow/flow-errors.js';
import { decideAndAppend, StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import { emitFlowWarnings } from '../../flow/flow-warnings.js';
import { reconcileFlowFile } from '../../flow/state-file-edits.js';
import { adoptHint } from '../../flow/adopt-hints.js';
import { isActiveAgentFlowRun } from '../../flow/agent-flow-file.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';

export interface FlowInitFlags {
  team?: boolean;
  forceSequential?: boolean;
  maxIterations?: string;
  useDeepDive?: boolean;
}

const DEEP_DIVE_MISSING = 'Deep-dive context requested but not available; continuing without it.';

/** `baton flow init <task…>` (§4). */
export async function flowInit(ctx: CommandContext, words: readonly string[], flags: FlowInitFlags): Promise<void> {
  const task = words.join(' ');
  if (task.trim() === '') throw refuse(ErrorCode.INVALID_INPUT, 'No task description provided');
  if (task.length > MAX_TASK_LENGTH) throw refuse(ErrorCode.INVALID_INPUT, `The task description must be at most ${MAX_TASK_LENGTH} characters`);
  let maxIterations = 10;
  if (flags.maxIterations !== undefined) {
    if (!/^\d+$/.test(flags.maxIterations) || Number(flags.maxIterations) < 1 || !Number.isSafeInteger(Number(flags.maxIterations))) {
      throw refuse(ErrorCode.INVALID_INPUT, '--max-iterations must be a positive integer');
    }
    maxIterations = Number(flags.maxIterations);
  }
  // I4: variant and mode are decided once, here.
  const variant = flags.team || flags.forceSequential ? Variant.team : Variant.orchestrate;
  const teams = ctx.env['CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS'] === '1' && !flags.forceSequential;
  const mode = variant === Variant.team && teams ? Mode.team : Mode.sequential;
  const teamAvailable = variant === Variant.team ? teams : null;
  const workspace = await ctx.workspace();
  const flowId = `flow_${randomBytes(12).toString('hex')}`;
  const stream = `flow/${flowId}`;
  const warnings: string[] = await reconcileFlowFile(ctx);
  let backedUp = false;

  const { result } = await decideAndAppend(ctx, (state: FlowState, versions) => {
    for (const record of [state.flows.orchestrate, state.flows.team]) {
      if (record?.context.status === FlowStatus.active) {
        throw refuse(FlowErrorCode.FLOW_ACTIVE, `A flow is already active (phase: ${record.context.current_phase}). End it with baton flow update --complete or --abort REASON first.`);
      }
    }
    // I8: a state file Baton did not render (for the previous flow of this variant) is kept.
    const path = join(workspace, STATE_FILE[variant]);
    const existing = readIfFile(workspace, path);
    const previous = state.flows[variant];
    // An Agent Flow run Baton has not recorded is taken over, never moved away in silence.
    const run = previous === null && existing !== undefined ? isActiveAgentFlowRun(existing.toString('utf8')) : null;
    if (run !== null) throw refuse(FlowErrorCode.FLOW_ACTIVE, `An Agent Flow run is in progress: ${adoptHint(STATE_FILE[variant], run.current_phase)} (or move the file away to start afresh).`);
    if (!backedUp && existing !== undefined && (previous === null || !existing.equals(Buffer.from(renderFlowFile(previous), 'utf8')))) {
      backupFile(workspace, path, existing, ctx.now);
      backedUp = true;
    }
    const dd = state.deep_dive;
    const available = dd !== null && dd.phase === 'complete';
    const requested = flags.useDeepDive === true;
    if (requested && !available && !warnings.includes(DEEP_DIVE_MISSING)) warnings.push(DEEP_DIVE_MISSING);
    const data: FlowStartedData = {
      flow_id: flowId,
      variant,
      mode,
      team_available: teamAvailable,
      task,
      max_iterations: maxIterations,
      deep_dive: { available, using: available && requested, scope: available ? dd.scope : null, generated: available ? dd.generated : null, requested },
    };
    // I5 across processes: the registry's expected version makes concurrent inits conflict.
    const registered: FlowRegisteredData = { flow_id: flowId, variant };
    return {
      events: [
        { type: FlowEventType.started, stream, data },
        { type: FlowRegistryEventType.registered, stream: FLOW_REGISTRY_STREAM, data: registered },
      ],
      expected: { [stream]: 'no_stream', [FLOW_REGISTRY_STREAM]: versions[FLOW_REGISTRY_STREAM] ?? 0 },
      outcome: null,
    };
  }, [FLOW_REGISTRY_STREAM]);
  void result;
  emitFlowWarnings(ctx, warnings);
  const state = await syncStateFiles(ctx, [StateFileKind.flow]);
  ctx.output.emit(FlowStatusEnvelope, flowStatusEnvelope(state, ctx.now, warnings), humanFlowStatus);
}
