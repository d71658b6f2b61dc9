import { OrchestrationState } from '../../events/work-units/terms.js';
import { decide, type Decision } from './decision-table.js';
import { evidenceOf, evidenceValues, stallSeconds, valuesOf, type EvidenceContext, type WuEvidence, type WuValues } from './evidence.js';
import { wuSummary } from './lazy-records.js';
import type { WorkUnitsConfig } from './settings.js';
import type { WorkUnitsState, WuRecord } from './state.js';

/**
 * One WU's state by the decision table (work-units.md §6.2), and every WU's at once: what the
 * initiative views, `status` and `wu explain` read. Pure.
 */
export interface WuAssessment {
  wu: WuRecord;
  /** The predicate values the decision read. */
  values: WuValues;
  decision: Decision;
}

export function thresholdText(config: WorkUnitsConfig): string {
  return config.orchestration.stall_threshold;
}

/** One WU's state by the decision table, with the events behind each predicate (for `wu explain`). */
export function assessWu(
  state: WorkUnitsState,
  wu: WuRecord,
  config: WorkUnitsConfig,
  now: string,
  ctx: EvidenceContext = { state, config, now, stall_seconds: stallSeconds(config) },
): WuAssessment & { evidence: WuEvidence } {
  const evidence = evidenceOf(wu, ctx);
  const values = valuesOf(evidence);
  return { wu, evidence, values, decision: decide(wu, values, now, thresholdText(config)) };
}

/** assessWu without the events: what a view of every WU needs (evidenceValues, not evidenceOf). */
function assessValues(wu: WuRecord, ctx: EvidenceContext, threshold: string): WuAssessment {
  const values = evidenceValues(wu, ctx);
  return { wu, values, decision: decide(wu, values, ctx.now, threshold) };
}

/**
 * Every defined WU of the workspace is assessed: lane holders are workspace-wide (§7.3). A WU done
 * by its summary is `done` by the table's first row whatever else holds, so its record is decoded
 * (lazy-records.ts) only when a view reads more of it than its state.
 */
export function assessWorkspace(state: WorkUnitsState, config: WorkUnitsConfig, now: string): Map<string, WuAssessment> {
  const assessments = new Map<string, WuAssessment>();
  const ctx: EvidenceContext = { state, config, now, stall_seconds: stallSeconds(config) };
  const threshold = thresholdText(config);
  for (const id of Object.keys(state.wus)) {
    const summary = wuSummary(state, id)!;
    if (!summary.defined) continue;
    assessments.set(id, summary.done ? doneAssessment(state, id, ctx, threshold) : assessValues(state.wus[id]!, ctx, threshold));
  }
  return assessments;
}

/** The first row of the decision table (`done`), as decide() answers it for any WU that is done. */
const DONE_DECISION: Decision = Object.freeze({ rule: 1, state: OrchestrationState.done, action: null, reason: null });

/** A done WU's assessment: its decision is known; its record and predicate values are worked out when read. */
function doneAssessment(state: WorkUnitsState, id: string, ctx: EvidenceContext, threshold: string): WuAssessment {
  let full: WuAssessment | undefined;
  const assessed = (): WuAssessment => (full ??= assessValues(state.wus[id]!, ctx, threshold));
  return {
    decision: DONE_DECISION,
    get wu() {
      return state.wus[id]!;
    },
    get values() {
      return assessed().values;
    },
  };
}
