import { FlowEventType } from '../../../events/flow/flow-events.js';
import { GROUP, GateStatus, Mode, Phase, Variant } from '../../../events/flow/vocabulary.js';
import { mergeVerdict, type FlowContext } from '../../../machines/flow-context.js';
import { step } from '../../../machines/flow-snapshot.js';
import { FlowMergeEnvelope, latestFlow } from '../../../projections/flow/index.js';
import { ErrorCode } from '../../errors.js';
import { agentFlowJson } from '../../flow/agent-flow-json.js';
import { FlowErrorCode, NO_FLOW_MESSAGE, refuse } from '../../flow/flow-errors.js';
import { decideAndAppend, StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import { reconcileFlowFile } from '../../flow/state-file-edits.js';
import type { CommandContext } from '../context.js';
import { humanFlowMerge } from './flow-render.js';

type Verdict = Omit<FlowMergeEnvelope, 'v' | 'type' | 'generated_at' | 'group'>;

/** The verdict to print when nothing is appended: the recorded one, else the provisional one. */
function standingVerdict(ctx: FlowContext): Verdict {
  const group = ctx.group;
  if (group !== null && (group.status === GateStatus.passed || group.status === GateStatus.failed) && ctx.last_merge !== null) {
    const { all_passed, failed_phases, summary } = ctx.last_merge;
    return { all_passed, failed_phases, summary, recorded: true };
  }
  return { ...mergeVerdict(group ?? { status: 'pending', started_at: null, completed_at: null, review: { status: 'pending', agent: 'Lawliet', timestamp: null, result: null }, verification: { status: 'pending', agent: 'Alphonse', timestamp: null, result: null } }), recorded: false };
}

/** `baton flow merge [--parallel-group G]` (§6.3): exit 0 whatever the verdict. */
export async function flowMerge(ctx: CommandContext, flags: { parallelGroup?: string }): Promise<void> {
  if (flags.parallelGroup !== undefined && flags.parallelGroup !== GROUP) {
    throw refuse(ErrorCode.INVALID_INPUT, `Unknown parallel group '${flags.parallelGroup}'. Allowed: ${GROUP}.`);
  }
  for (const warning of await reconcileFlowFile(ctx)) ctx.output.warn(warning);
  const { result, appended } = await decideAndAppend(ctx, (state) => {
    const record = latestFlow(state);
    if (record === null) throw refuse(FlowErrorCode.NO_FLOW, NO_FLOW_MESSAGE);
    const flow = record.context;
    if (flow.variant !== Variant.team || flow.mode !== Mode.team) {
      throw refuse(FlowErrorCode.NOT_TEAM_MODE, `Parallel groups exist only in team mode (this flow is ${flow.variant}/${flow.mode}).`);
    }
    if (flow.current_phase === Phase.review_verification && flow.status === 'active') {
      const stepped = step(flow, { type: 'MERGE', at: ctx.now });
      const merged = stepped.accepted ? stepped.facts.find((f) => f.type === FlowEventType.group_merged) : undefined;
      if (stepped.accepted && merged?.type === FlowEventType.group_merged) {
        const { all_passed, failed_phases, summary } = merged.data;
        return {
          events: stepped.facts.map((fact) => ({ type: fact.type, stream: record.stream, data: fact.data })),
          expected: { [record.stream]: record.version },
          outcome: { all_passed, failed_phases, summary, recorded: true },
        };
      }
    }
    return { events: [], expected: {}, outcome: standingVerdict(flow) };
  });
  if (appended) await syncStateFiles(ctx, [StateFileKind.flow]);
  const envelope = FlowMergeEnvelope.parse({ v: 1, type: 'flow_merge', generated_at: ctx.now, group: GROUP, ...result });
  if (ctx.output.mode === 'json') ctx.output.line(agentFlowJson(envelope));
  else ctx.output.emit(FlowMergeEnvelope, envelope, humanFlowMerge);
}
