import { FlowStatusEnvelope, flowStatusEnvelope } from '../../../projections/flow/index.js';
import { StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';

/** `baton flow status` (§9): the most recent flow, and its state file rewritten if missing or different. */
export async function flowStatus(ctx: CommandContext): Promise<void> {
  const state = await syncStateFiles(ctx, [StateFileKind.flow]);
  ctx.output.emit(FlowStatusEnvelope, flowStatusEnvelope(state, ctx.now), humanFlowStatus);
}
