import { describe, expect, it } from 'vitest';
import { decideClaim, type ClaimWu, type WuCommandState } from '../../deciders/work-units.js';
import { IDENTITY_LEASE_SECONDS } from '../../projections/work-units/claim-holder.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { repositoryPath, reservationsFor } from '../../projections/work-units/reservations.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';
import { given, specify, T0, versionOf, type Fact } from './given.js';

/**
 * File reservations: `wu claim --paths` records what the claim reserves besides the WU's code_paths,
 * and the pure rule (projections/work-units/reservations.ts) says which live claims reserve a path.
 */
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const wu = (id: string, codePaths: string[] = [], lane = id): Fact => ({
  type: 'wu.defined',
  stream: `wu/${id}`,
  data: { wu_id: id, title: id, lane, dependencies: [], code_paths: codePaths },
});
const started = (id: string, extra: Record<string, unknown> = {}, ttl = 3600): Fact => ({
  type: 'session.started',
  stream: `session/${id}`,
  data: { session_id: id, display_name: id, ttl_seconds: ttl, ...extra },
});
const claimed = (id: string, session: string | null, extra: Record<string, unknown> = {}): Fact => ({
  type: 'wu.claimed',
  stream: `wu/${id}`,
  actor: session ?? 'system',
  data: { wu_id: id, session_id: session, mode: 'worktree', worktree_path: `worktrees/${id.toLowerCase()}`, branch: null, takeover_from: null, ...extra },
});
const A = 'session_a';
const B = 'session_b';

const claim = specify<ClaimWu, WuCommandState, unknown>({
  decide: decideClaim,
  state: (facts) => ({ fold: given(workUnitsStateProjection, facts), version: versionOf(facts, 'wu/WU-1') }),
});
const claimBy = (session: string, paths?: string[]): ClaimWu => ({
  wuId: 'WU-1',
  session,
  actor: session,
  now: at(10),
  defaults: { claimMode: 'branch-only', worktreesDir: 'worktrees' },
  config: DEFAULT_WORK_UNITS_CONFIG,
  ...(paths !== undefined ? { paths } : {}),
});

describe('wu claim --paths (decider)', () => {
  it('records the paths, each once, in wu.claimed', () => {
    const decision = claim
      .given([started(A), wu('WU-1', ['src/core/**'])])
      .when(claimBy(A, ['docs/**', 'README.md', 'docs/**']))
      .then([
        {
          type: 'wu.claimed',
          stream: 'wu/WU-1',
          data: {
            wu_id: 'WU-1',
            session_id: A,
            mode: 'branch-only',
            worktree_path: null,
            branch: 'lane/wu-1/wu-1',
            takeover_from: null,
            paths: ['docs/**', 'README.md'],
          },
        },
      ]);
    expect(decision.events).toHaveLength(1);
  });

  it("the holder's repeat with the same paths appends nothing; with new ones it is refused, naming --paths", () => {
    const facts = [started(A), wu('WU-1'), claimed('WU-1', A, { paths: ['docs/**'] })];
    claim
      .given(facts)
      .when(claimBy(A, ['docs/**']))
      .thenNothing();
    const refusal = claim
      .given(facts)
      .when(claimBy(A, ['src/**']))
      .thenRefuses('INVALID_INPUT');
    expect(refusal.message).toContain('already yours');
  });
});

describe('which live claims reserve a path (pure)', () => {
  const facts = [
    started(A, { agent_identity: 'claude:core' }),
    started(B, {}, 600),
    wu('WU-1', ['src/core/**', 'package.json']),
    wu('WU-2', ['src/ui']),
    wu('WU-3', ['lib/**']),
    claimed('WU-1', A, { paths: ['docs/api/*.md'] }),
    claimed('WU-2', B),
    claimed('WU-3', null, { agent_identity: 'claude:lib' }),
  ];
  const fold = given(workUnitsStateProjection, facts);

  it("a live holder reserves its WU's code_paths and its claim's paths (globs, or a folder and what is below it)", () => {
    const now = at(10);
    expect(reservationsFor(fold, 'src/core/a/b.ts', now).map((r) => [r.wu_id, r.glob, r.holder.session])).toEqual([['WU-1', 'src/core/**', A]]);
    expect(reservationsFor(fold, 'docs/api/claims.md', now).map((r) => r.glob)).toEqual(['docs/api/*.md']);
    expect(reservationsFor(fold, 'docs/api/deep/claims.md', now)).toEqual([]);
    expect(reservationsFor(fold, 'src/ui/button.tsx', now).map((r) => r.wu_id)).toEqual(['WU-2']);
    expect(reservationsFor(fold, 'src/uikit/x.ts', now)).toEqual([]);
    // A claim an agent identity made without a session is held for a TTL after its last activity.
    expect(reservationsFor(fold, 'lib/x.ts', now).map((r) => [r.wu_id, r.holder.identity])).toEqual([['WU-3', 'claude:lib']]);
  });

  it('a lapsed or ended holder reserves nothing, nor does a done WU', () => {
    // B's TTL is ten minutes: half an hour on, its lease has lapsed; the identity's claim lapses a lease after its claim.
    expect(reservationsFor(fold, 'src/ui/button.tsx', at(30))).toEqual([]);
    expect(reservationsFor(fold, 'lib/x.ts', at(8 + IDENTITY_LEASE_SECONDS / 60))).toEqual([]);
    const ended = given(workUnitsStateProjection, [
      ...facts,
      { type: 'session.ended', stream: `session/${A}`, actor: A, data: { session_id: A, status: 'succeeded' } },
    ]);
    expect(reservationsFor(ended, 'src/core/a.ts', at(12))).toEqual([]);
    const done = given(workUnitsStateProjection, [
      ...facts,
      {
        type: 'wu.stamped',
        stream: 'wu/WU-1',
        actor: A,
        data: { wu_id: 'WU-1', title: 'WU-1', completed_date: '2026-06-01', stamp_path: '.baton/stamps/WU-1.done' },
      },
    ]);
    expect(reservationsFor(done, 'src/core/a.ts', at(12))).toEqual([]);
  });

  it("a path inside a current claim's worktree folder is that worktree's repository path", () => {
    expect(repositoryPath(fold, 'worktrees/wu-2/src/ui/x.ts')).toBe('src/ui/x.ts');
    expect(repositoryPath(fold, 'worktrees/other/src/ui/x.ts')).toBe('worktrees/other/src/ui/x.ts');
  });
});
