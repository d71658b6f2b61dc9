import { FlowStatusEnvelope } from '../../../projections/flow/index.js';
import { adoptFlow } from '../../app/commands/flows.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';

export interface FlowAdoptFlags {
  file?: string;
}

/** `baton flow adopt [--file F]`: src/app/commands/flows.ts, printed. */
export async function flowAdopt(ctx: CommandContext, flags: FlowAdoptFlags): Promise<void> {
  ctx.output.emit(FlowStatusEnvelope, await adoptFlow(ctx, { file: flags.file }), humanFlowStatus);
}
