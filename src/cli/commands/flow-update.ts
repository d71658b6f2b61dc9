import type { NewEvent } from '../../../events/envelope.js';
import { FlowStatusEnvelope, flowStatusEnvelope, latestFlow } from '../../../projections/flow/index.js';
import { decideUpdate } from '../../flow/decide-update.js';
import { FlowErrorCode, NO_FLOW_MESSAGE, refuse } from '../../flow/flow-errors.js';
import { decideAndAppend, foldFlows, StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import { parseUpdateFlags, type RawUpdateFlags } from '../../flow/update-flags.js';
import { emitFlowWarnings } from '../../flow/flow-warnings.js';
import { reconcileFlowFile } from '../../flow/state-file-edits.js';
import type { CommandContext } from '../context.js';
import { humanFlowStatus } from './flow-render.js';

/** `baton flow update …` (§5, §6): validate, decide through the machine, append one batch. */
export async function flowUpdate(ctx: CommandContext, raw: RawUpdateFlags): Promise<void> {
  const parsed = parseUpdateFlags(raw);
  const warnings = await reconcileFlowFile(ctx);
  const { appended } = await decideAndAppend(ctx, (state) => {
    const record = latestFlow(state);
    if (record === null) throw refuse(FlowErrorCode.NO_FLOW, NO_FLOW_MESSAGE);
    const decision = decideUpdate(record.context, parsed, ctx.now);
    const events: NewEvent[] = decision.facts.map((fact) => ({ type: fact.type, stream: record.stream, data: fact.data }));
    return { events, expected: { [record.stream]: record.version }, outcome: null };
  });
  // A no-op rewrites nothing (R2); a state file that went missing is restored by `flow status`.
  const state = appended ? await syncStateFiles(ctx, [StateFileKind.flow]) : await foldFlows(ctx);
  emitFlowWarnings(ctx, warnings);
  ctx.output.emit(FlowStatusEnvelope, flowStatusEnvelope(state, ctx.now, warnings), humanFlowStatus);
}
