import { decideFlowMerge } from '../../../deciders/flows.js';
import { GROUP } from '../../../events/flow/vocabulary.js';
import { FlowMergeEnvelope } from '../../../projections/flow/index.js';
import { ErrorCode } from '../../errors.js';
import { agentFlowJson } from '../../flow/agent-flow-json.js';
import { refuse } from '../../flow/flow-errors.js';
import { decideAndAppend, StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import { reconcileFlowFile } from '../../flow/state-file-edits.js';
import type { CommandContext } from '../context.js';
import { humanFlowMerge } from './flow-render.js';

/** `baton flow merge [--parallel-group G]` (§6.3): exit 0 whatever the verdict. */
export async function flowMerge(ctx: CommandContext, flags: { parallelGroup?: string }): Promise<void> {
  if (flags.parallelGroup !== undefined && flags.parallelGroup !== GROUP) {
    throw refuse(ErrorCode.INVALID_INPUT, `Unknown parallel group '${flags.parallelGroup}'. Allowed: ${GROUP}.`);
  }
  for (const warning of await reconcileFlowFile(ctx)) ctx.output.warn(warning);
  const { result, appended } = await decideAndAppend(ctx, (state, versions) => decideFlowMerge({ now: ctx.now }, { state, versions }));
  if (appended) await syncStateFiles(ctx, [StateFileKind.flow]);
  const envelope = FlowMergeEnvelope.parse({ v: 1, type: 'flow_merge', generated_at: ctx.now, group: GROUP, ...result });
  if (ctx.output.mode === 'json') ctx.output.line(agentFlowJson(envelope));
  else ctx.output.emit(FlowMergeEnvelope, envelope, humanFlowMerge);
}
