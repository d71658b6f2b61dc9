import { stampYamlFindings } from './stamp-consistency.js';
import { isTerminalYamlStatus } from '../../events/work-units/terms.js';
import { DECISION_ROWS } from './decision-table.js';
import type { WuEvidence } from './evidence.js';
import { assessWu, computeInitiative } from './initiative-view.js';
import type { WorkUnitsConfig } from './settings.js';
import { initiativeOf, type IntegrityFinding, type Mark, type WorkUnitsState } from './state.js';
import { DependencyCycleError } from './waves.js';

/** `wu explain` (work-units.md §14): why a WU is in its state, predicate by predicate, with the events behind each. */
export interface WuExplanation {
  v: 1;
  type: 'wu_explanation';
  generated_at: string;
  wu_id: string;
  initiative: string | null;
  orchestration_state: string;
  rule: number;
  next_safe_action: { type: string; reason: string } | null;
  predicates: { name: string; value: unknown; evidence: number[] }[];
  evidence: { seq: number; type: string; at: string; actor: string; stream: string; summary: string }[];
  integrity_findings: IntegrityFinding[];
}

/** Null when the log has never seen the WU. */
export function explainWu(state: WorkUnitsState, wuId: string, config: WorkUnitsConfig, now: string): WuExplanation | null {
  const wu = state.wus[wuId];
  if (wu === undefined) return null;
  const { evidence, decision } = assessWu(state, wu, config, now);
  const predicates: WuExplanation['predicates'] = [];
  const marks = new Map<number, Mark>();
  const seen = new Set<string>();
  for (const row of DECISION_ROWS.slice(0, decision.rule)) {
    for (const name of row.predicates) {
      if (seen.has(name)) continue;
      seen.add(name);
      const f = evidence[name] as WuEvidence['DONE'];
      for (const m of f.evidence) marks.set(m.seq, m);
      predicates.push({ name, value: f.value, evidence: f.evidence.map((m) => m.seq) });
    }
  }
  let next: { type: string; reason: string } | null = decision.action === null ? null : { type: decision.action, reason: decision.reason! };
  const initiative = initiativeOf(state, wu);
  if (initiative !== null && state.initiatives[initiative] !== undefined) {
    try {
      const c = computeInitiative(state, initiative, { config, now, useRecordedCapacity: true });
      const action = c.next_safe_actions.find((a) => a.wu_id === wuId || (a.wu_ids ?? []).includes(wuId));
      next = action === undefined ? null : { type: action.type, reason: action.reason };
    } catch (error) {
      if (!(error instanceof DependencyCycleError)) throw error;
    }
  }
  const findings = [...stampYamlFindings(state, wu)];
  // A stamp is never undone: a later non-terminal YAML status is a contradiction to report (§3.4).
  if (
    wu.stamped !== null &&
    wu.yaml_status !== null &&
    !isTerminalYamlStatus(wu.yaml_status) &&
    wu.yaml_status_mark !== null &&
    wu.yaml_status_mark.seq > wu.stamped.seq
  ) {
    const m = wu.yaml_status_mark;
    findings.push({
      seq: m.seq,
      stream: m.stream,
      type: m.type,
      code: 'STAMP_CONTRADICTED',
      message: `${wuId} is stamped done, but its YAML now says ${wu.yaml_status}`,
    });
  }
  return {
    v: 1,
    type: 'wu_explanation',
    generated_at: now,
    wu_id: wuId,
    initiative: wu.def.initiative ?? null,
    orchestration_state: decision.state,
    rule: decision.rule,
    next_safe_action: next,
    predicates,
    evidence: [...marks.values()]
      .sort((a, b) => a.seq - b.seq)
      .map((m) => ({ seq: m.seq, type: m.type, at: m.at, actor: m.actor, stream: m.stream, summary: m.summary })),
    integrity_findings: findings.sort((a, b) => a.seq - b.seq),
  };
}
