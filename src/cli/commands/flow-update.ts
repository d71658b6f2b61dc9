import { decideFlowUpdate } from '../../../deciders/flow-update.js';
import { FlowStatusEnvelope, flowStatusEnvelope } from '../../../projections/flow/index.js';
import { decideAndAppend, foldFlows, StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import { parseUpdateFlags, type RawUpdateFlags } from '../../flow/update-flags.js';
import { emitFlowWarnings } from '../../flow/flow-warnings.js';
import { reconcileFlowFile } from '../../flow/state-file-edits.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';

/** `baton flow update …` (§5, §6): validate, decide through the machine (deciders/flow-update.ts), append one batch. */
export async function flowUpdate(ctx: CommandContext, raw: RawUpdateFlags): Promise<void> {
  const parsed = parseUpdateFlags(raw);
  const warnings = await reconcileFlowFile(ctx);
  const { appended } = await decideAndAppend(ctx, (state) => decideFlowUpdate({ update: parsed, now: ctx.now }, state));
  // A no-op rewrites nothing (R2); a state file that went missing is restored by `flow status`.
  const state = appended ? await syncStateFiles(ctx, [StateFileKind.flow]) : await foldFlows(ctx);
  emitFlowWarnings(ctx, warnings);
  ctx.output.emit(FlowStatusEnvelope, flowStatusEnvelope(state, ctx.now, warnings), humanFlowStatus);
}
