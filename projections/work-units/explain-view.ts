import { stampYamlFindings } from './stamp-consistency.js';
import { isTerminalYamlStatus } from '../../events/work-units/terms.js';
import { DECISION_ROWS } from './decision-table.js';
import type { WuEvidence } from './evidence.js';
import { assessWu, computeInitiative } from './initiative-view.js';
import type { WorkUnitsConfig } from './settings.js';
import { initiativeOf, type IntegrityFinding, type Mark, type WorkUnitsState, type WuRecord } from './state.js';
import { currentClaim, holderOf } from './claim-holder.js';
import { holdsClaims } from '../coordination/liveness.js';
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
  /** The current claim's holder and lease (null when unclaimed); an older log's sessionless claim is `unowned`. */
  claim: ClaimHolding | null;
}

export interface ClaimHolding {
  seq: number;
  unowned: boolean;
  session: string | null;
  agent_identity: string | null;
  live: boolean;
  last_seen: string | null;
  lease_until: string | null;
  takeover_from: string | null;
  /** Why it took over or overrode readiness, and which checks it overrode (`--force`). */
  reason: string | null;
  forced: string[];
}

function claimHolding(state: WorkUnitsState, wu: WuRecord, now: string): ClaimHolding | null {
  const claim = currentClaim(wu);
  if (claim === null) return null;
  const holder = holderOf(state, wu, now);
  return {
    seq: claim.seq,
    unowned: holder === null,
    session: claim.session_id,
    agent_identity: holder?.identity ?? null,
    live: holder !== null && holdsClaims(holder.liveness),
    last_seen: holder?.last_seen ?? null,
    lease_until: holder?.lease_until ?? null,
    takeover_from: claim.takeover_from ?? null,
    reason: claim.reason ?? null,
    forced: claim.forced ?? [],
  };
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
    claim: claimHolding(state, wu, now),
  };
}
