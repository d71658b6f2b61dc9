import { FlowMergeEnvelope } from '../../../projections/flow/index.js';
import { mergeFlow } from '../../app/commands/flows.js';
import { agentFlowJson } from '../../flow/agent-flow-json.js';
import type { CommandContext } from '../context.js';
import { humanFlowMerge } from './flow-render.js';

/** `baton flow merge [--parallel-group G]` (§6.3): src/app/commands/flows.ts, printed; exit 0 whatever the verdict. */
export async function flowMerge(ctx: CommandContext, flags: { parallelGroup?: string }): Promise<void> {
  const envelope = await mergeFlow(ctx, { parallel_group: flags.parallelGroup });
  // Agent Flow's team-orchestrate.md reads the verdict back with a sed that expects its script's spacing.
  if (ctx.output.mode === 'json') ctx.output.line(agentFlowJson(envelope));
  else ctx.output.emit(FlowMergeEnvelope, envelope, humanFlowMerge);
}
