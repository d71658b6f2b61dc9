import { FlowStatusEnvelope, flowStatusEnvelope, latestFlow } from '../../../projections/flow/index.js';
import { adoptableFileHints } from '../../flow/adopt-hints.js';
import { emitFlowWarnings } from '../../flow/flow-warnings.js';
import { reconcileFlowFile } from '../../flow/state-file-edits.js';
import { StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';

/** `baton flow status` (§9): the most recent flow, and its state file rewritten if missing or different. */
export async function flowStatus(ctx: CommandContext): Promise<void> {
  const warnings = await reconcileFlowFile(ctx);
  const state = await syncStateFiles(ctx, [StateFileKind.flow]);
  if (latestFlow(state) === null) warnings.push(...(await adoptableFileHints(ctx)));
  emitFlowWarnings(ctx, warnings);
  ctx.output.emit(FlowStatusEnvelope, flowStatusEnvelope(state, ctx.now, warnings), humanFlowStatus);
}
