import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { decideFlowInit, type InitFlow } from '../../../deciders/flows.js';
import { FLOW_REGISTRY_STREAM } from '../../../events/flow/flow-registry-events.js';
import { MAX_TASK_LENGTH, Mode, Variant } from '../../../events/flow/vocabulary.js';
import { FlowStatusEnvelope, flowStatusEnvelope, renderFlowFile, STATE_FILE } from '../../../projections/flow/index.js';
import { readIfFile } from '../../artifacts/atomic-write.js';
import { backupFile } from '../../artifacts/backup-file.js';
import { ErrorCode } from '../../errors.js';
import { refuse } from '../../flow/flow-errors.js';
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
  const warnings: string[] = await reconcileFlowFile(ctx);
  let backedUp = false;

  const path = join(workspace, STATE_FILE[variant]);
  const command: Omit<InitFlow, 'agentFlowRun'> = { flowId, variant, mode, teamAvailable, task, maxIterations, useDeepDive: flags.useDeepDive === true };
  const { result } = await decideAndAppend(
    ctx,
    (state, versions) => {
      const existing = readIfFile(workspace, path);
      const run = existing !== undefined ? isActiveAgentFlowRun(existing.toString('utf8')) : null;
      const decision = decideFlowInit(
        { ...command, agentFlowRun: run === null ? null : adoptHint(STATE_FILE[variant], run.current_phase) },
        { state, versions },
      );
      // I8: a state file Baton did not render (for the previous flow of this variant) is kept.
      const previous = state.flows[variant];
      if (!backedUp && existing !== undefined && (previous === null || !existing.equals(Buffer.from(renderFlowFile(previous), 'utf8')))) {
        backupFile(workspace, path, existing, ctx.now);
        backedUp = true;
      }
      return decision;
    },
    [FLOW_REGISTRY_STREAM],
  );
  if (result.deepDiveMissing && !warnings.includes(DEEP_DIVE_MISSING)) warnings.push(DEEP_DIVE_MISSING);
  emitFlowWarnings(ctx, warnings);
  const state = await syncStateFiles(ctx, [StateFileKind.flow]);
  ctx.output.emit(FlowStatusEnvelope, flowStatusEnvelope(state, ctx.now, warnings), humanFlowStatus);
}
