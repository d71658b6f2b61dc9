import { FlowStatusEnvelope } from '../../../projections/flow/index.js';
import { flowStatus as flowStatusEnvelope } from '../../app/commands/flows.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';

/** `baton flow status` (§9): src/app/commands/flows.ts, printed. */
export async function flowStatus(ctx: CommandContext): Promise<void> {
  ctx.output.emit(FlowStatusEnvelope, await flowStatusEnvelope(ctx), humanFlowStatus);
}
