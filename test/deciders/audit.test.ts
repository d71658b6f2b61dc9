import { describe, expect, it } from 'vitest';
import { decideAuditFixes, type AuditFixCommand } from '../../deciders/audit.js';
import { EMPTY_DISK_FACTS, type RepositoryFacts } from '../../projections/audit/types.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { given, T0, versionOf, type Fact } from './given.js';

/**
 * `baton audit --fix` decided on the work-unit fold: the lapse of a silent holder, the release of a
 * claim whose holder is gone and whose worktree is gone too, the stamp a probe saw; each event with
 * the finding code it settles and why. A live holder's claim is never released, and once the log
 * records it all, the decision is null (a second `--fix` appends nothing).
 */
const A = 'session_a';
const B = 'session_b';
const minutes = (n: number): string => new Date(Date.parse(T0) + n * 60_000).toISOString();
const started = (id: string): Fact => ({
  type: 'session.started',
  stream: `session/${id}`,
  at: T0,
  actor: id,
  data: { session_id: id, display_name: id.slice(8), ttl_seconds: 600 },
});
const defined = (id: string): Fact => ({ type: 'wu.defined', stream: `wu/${id}`, at: T0, data: { wu_id: id, title: id, lane: `lane ${id}` } });
const claimed = (id: string, session: string): Fact => ({
  type: 'wu.claimed',
  stream: `wu/${id}`,
  at: minutes(1),
  actor: session,
  data: {
    wu_id: id,
    session_id: session,
    mode: 'worktree',
    worktree_path: `worktrees/${id.toLowerCase()}`,
    branch: `lane/x/${id.toLowerCase()}`,
    takeover_from: null,
  },
});
const heartbeat = (id: string, at: string): Fact => ({ type: 'session.heartbeat', stream: `session/${id}`, at, actor: id, data: { session_id: id } });

const FACTS: Fact[] = [
  started(A),
  started(B),
  defined('WU-1'),
  defined('WU-2'),
  defined('WU-3'),
  claimed('WU-1', A),
  claimed('WU-2', B),
  heartbeat(B, minutes(25)),
];
/** A repository where neither claim's worktree nor branch exists. */
const REPO: RepositoryFacts = {
  top_level: '/repo',
  integration: { name: 'main', ref: 'refs/heads/main', commit: 'c0' },
  branches: { main: 'c0' },
  worktrees: [{ path: '/repo', relative: '.', head: 'c0', branch: 'main', prunable: false }],
  commits: [{ id: 'c0', parents: [], at: T0, subject: 'init', paths: [] }],
};
const STAMP = {
  type: 'observation.stamp_file',
  stream: 'wu/WU-3',
  data: { wu_id: 'WU-3', path: '.baton/stamps/WU-3.done', present: true, valid: true, content_hash: 'a'.repeat(64) },
};
const command: AuditFixCommand = {
  now: minutes(30),
  actor: 'system',
  repository: REPO,
  disk: { ...EMPTY_DISK_FACTS, observations: [STAMP] },
  windows: { stall_seconds: 600, ack_seconds: 600, flow_phase_seconds: 600 },
};
const versions = { 'wu/WU-1': versionOf(FACTS, 'wu/WU-1'), 'wu/WU-2': versionOf(FACTS, 'wu/WU-2') };

describe('decideAuditFixes', () => {
  it('lapses the silent holder, releases its claim whose workspace is gone, records the stamp; the live holder keeps its claim', () => {
    const decision = decideAuditFixes(command, { fold: given(workUnitsStateProjection, FACTS), versions })!;
    expect(decision.events.map((e) => [e.type, e.stream, (e.data['audit'] as { code: string }).code])).toEqual([
      ['session.lapsed', `session/${A}`, 'SESSION_LAPSE_UNRECORDED'],
      ['wu.released', 'wu/WU-1', 'WU_WORKTREE_MISSING'],
      ['observation.stamp_file', 'wu/WU-3', 'STAMP_UNRECORDED'],
    ]);
    expect(decision.events[1]!.data).toMatchObject({ wu_id: 'WU-1', previous_claimant: A, reason: expect.stringContaining('worktrees/wu-1') });
    expect(decision.expected).toEqual({ [`session/${A}`]: versionOf(FACTS, `session/${A}`), 'wu/WU-1': versions['wu/WU-1'] });
    expect(decision.outcome.map((f) => f.subject)).toEqual([A, 'WU-1', 'WU-3']);
  });

  it('appends nothing once the log records what it decided (a second --fix)', () => {
    const first = decideAuditFixes(command, { fold: given(workUnitsStateProjection, FACTS), versions })!;
    const after = [...FACTS, ...first.events.map((e) => ({ ...e, at: minutes(30) }))];
    const again = { 'wu/WU-1': versionOf(after, 'wu/WU-1'), 'wu/WU-2': versionOf(after, 'wu/WU-2') };
    expect(decideAuditFixes(command, { fold: given(workUnitsStateProjection, after), versions: again })).toBeNull();
  });

  it('releases nothing outside a git repository, nor a WU whose stream version was not read', () => {
    const noRepo = decideAuditFixes({ ...command, repository: null, disk: EMPTY_DISK_FACTS }, { fold: given(workUnitsStateProjection, FACTS), versions })!;
    expect(noRepo.events.map((e) => e.type)).toEqual(['session.lapsed']);
    const unread = decideAuditFixes({ ...command, disk: EMPTY_DISK_FACTS }, { fold: given(workUnitsStateProjection, FACTS), versions: {} })!;
    expect(unread.events.map((e) => e.type)).toEqual(['session.lapsed']);
  });
});
