import { initFlow } from '../../app/commands/flows.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';
import { FlowStatusEnvelope } from '../../../projections/flow/index.js';

export interface FlowInitFlags {
  team?: boolean;
  forceSequential?: boolean;
  maxIterations?: string;
  useDeepDive?: boolean;
}

/** `baton flow init <task…>` (§4): src/app/commands/flows.ts, printed. */
export async function flowInit(ctx: CommandContext, words: readonly string[], flags: FlowInitFlags): Promise<void> {
  const envelope = await initFlow(ctx, {
    task: words.join(' '),
    team: flags.team,
    force_sequential: flags.forceSequential,
    max_iterations: flags.maxIterations,
    use_deep_dive: flags.useDeepDive,
  });
  ctx.output.emit(FlowStatusEnvelope, envelope, humanFlowStatus);
}
