import type { AuditMark } from '../events/audit-mark.js';
import { compareWuIds } from '../events/work-units/terms.js';
import { claimFindings } from '../projections/audit/claim-findings.js';
import { CommitGraph } from '../projections/audit/commit-graph.js';
import { initAuditLog } from '../projections/audit/log-fold.js';
import type { AuditWindows, DiskFacts, Finding, RepositoryFacts } from '../projections/audit/types.js';
import { ownValue } from '../projections/own-keys.js';
import { currentClaim } from '../projections/work-units/claim-holder.js';
import type { WorkUnitsState } from '../projections/work-units/records.js';
import { stepWu } from '../machines/work-unit-steps.js';
import type { Decision, ExpectedVersion, ProposedEvent } from './decision.js';
import { decideLapses } from './sessions.js';

/**
 * `baton audit --fix`: the corrective events the audit's findings name, decided on the work-unit
 * fold read now (a retry after a lost race decides again on what the log then says):
 *
 * - the lapses of sessions idle past their TTL that still hold WUs (`decideLapses`, the rule every
 *   command applies), each expecting its session stream's version;
 * - the release of a claim whose holder is not live and whose worktree or branch is gone, each
 *   expecting its WU stream's version (read before the fold: `versions`);
 * - what the stamp and WU YAML probes saw on disk and no event records, as the probes record it.
 *
 * Each event carries `audit: { code, reason }`. Nothing to fix is null: a second `--fix` appends nothing.
 */
export interface AuditFixCommand {
  now: string;
  /** Who records the events (the acting session, an identity, or `system`). */
  actor: string;
  repository: RepositoryFacts | null;
  disk: DiskFacts;
  windows: AuditWindows;
}

export interface AuditFixState {
  fold: WorkUnitsState;
  /** `wu/<id>` → its version, read before the fold, for every WU a release may concern. */
  versions: Readonly<Record<string, number>>;
}

export interface AppliedFix {
  code: string;
  subject: string;
  type: string;
}

const REASON_MAX = 2000;
const mark = (code: string, reason: string): AuditMark => ({ code, reason: reason.length > REASON_MAX ? `${reason.slice(0, REASON_MAX - 1)}…` : reason });

/** The WUs whose claims a release may concern: claimed, not done (what the caller reads the versions of). */
export function releaseCandidates(fold: WorkUnitsState): string[] {
  return Object.values(fold.wus)
    .filter((wu) => currentClaim(wu) !== null)
    .map((wu) => wu.wu_id)
    .sort(compareWuIds);
}

export function decideAuditFixes(command: AuditFixCommand, state: AuditFixState): Decision<AppliedFix[]> | null {
  const events: ProposedEvent[] = [];
  const expected: Record<string, ExpectedVersion> = {};
  const applied: AppliedFix[] = [];
  const lapses = decideLapses(state.fold, command.now, command.actor);
  for (const event of lapses?.events ?? []) {
    const d = event.data as { session_id: string; held_wus: string[]; lapsed_at: string };
    const reason = `idle past its TTL: its lease lapsed at ${d.lapsed_at} while it held ${d.held_wus.join(', ')}`;
    events.push({ ...event, data: { ...event.data, audit: mark('SESSION_LAPSE_UNRECORDED', reason) } });
    applied.push({ code: 'SESSION_LAPSE_UNRECORDED', subject: d.session_id, type: event.type });
  }
  Object.assign(expected, lapses?.expected ?? {});
  for (const release of releases(command, state)) {
    const stream = `wu/${release.wu_id}`;
    const claimant = currentClaim(state.fold.wus[release.wu_id]!)?.session_id ?? null;
    const data = { wu_id: release.wu_id, reason: release.finding.message.slice(0, REASON_MAX), previous_claimant: claimant };
    events.push({ type: 'wu.released', stream, data: { ...data, audit: mark(release.finding.code, release.finding.message) } });
    expected[stream] = state.versions[stream]!;
    applied.push({ code: release.finding.code, subject: release.wu_id, type: 'wu.released' });
  }
  for (const observation of command.disk.observations) {
    const code = stillNews(state.fold, observation);
    if (code === null) continue;
    const d = observation.data as { wu_id: string; path: string };
    events.push({ ...observation, data: { ...observation.data, audit: mark(code, `${d.path} on disk says what no event records`) } });
    applied.push({ code, subject: d.wu_id, type: observation.type });
  }
  if (events.length === 0) return null;
  return { events, expected, outcome: applied };
}

/** Claims the findings say to release (a holder not live, its workspace gone), one per WU, for WUs whose version was read. */
function releases(command: AuditFixCommand, state: AuditFixState): { wu_id: string; finding: Finding }[] {
  const graph = command.repository === null ? null : new CommitGraph(command.repository);
  if (graph === null) return [];
  const ctx = { fold: state.fold, log: initAuditLog(), now: command.now, windows: command.windows, graph };
  const out: { wu_id: string; finding: Finding }[] = [];
  for (const wuId of releaseCandidates(state.fold)) {
    const wu = state.fold.wus[wuId]!;
    if (state.versions[`wu/${wuId}`] === undefined || stepWu(wu.lifecycle, { type: 'RELEASE' }) === null) continue;
    const found = claimFindings(wu, ctx).find((f) => f.fix?.kind === 'release');
    if (found !== undefined) out.push({ wu_id: wuId, finding: found });
  }
  return out;
}

/** The code of an observation the fold does not record yet (the probe compared it with an earlier read), or null. */
function stillNews(fold: WorkUnitsState, observation: ProposedEvent): string | null {
  const d = observation.data as { wu_id: string; present?: boolean; valid?: boolean; path: string; content_hash?: string | null };
  const wu = ownValue(fold.wus, d.wu_id);
  if (observation.type === 'observation.stamp_file') {
    const seen = wu?.stamp_file ?? null;
    if (wu !== undefined && wu.stamped !== null) return null;
    if (seen !== null && seen.path === d.path && seen.present === d.present && seen.valid === d.valid) return null;
    return d.present === true ? 'STAMP_UNRECORDED' : 'STAMP_REMOVED';
  }
  if (observation.type === 'observation.wu_yaml') return wu?.yaml_content_hash === d.content_hash ? null : 'WU_YAML_UNRECORDED';
  return null;
}
