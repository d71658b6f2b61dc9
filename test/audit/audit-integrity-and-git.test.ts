import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditFindings } from '../../projections/audit/findings.js';
import { auditLogProjection } from '../../projections/audit/log-fold.js';
import { EMPTY_DISK_FACTS } from '../../projections/audit/types.js';
import { flowProjection } from '../../projections/flow/index.js';
import { foldEvents } from '../../projections/projection.js';
import { tasksStateProjection } from '../../projections/tasks/projections.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { gatherRepositoryFacts } from '../../src/audit/git-facts.js';
import { decoded } from '../helpers/decoded.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

/**
 * The log's own integrity as the audit reports it (an event the catalog refuses, a fact a fold
 * refuses, the store's recoveries and repairs), and what git shows in a handful of processes: the
 * integration branch (the configured one, else the remote HEAD's, else main), worktrees, paths.
 */
afterAll(removeTempDirs);

const T0 = Date.parse('2026-04-17T10:00:00.000Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

describe('integrity findings', () => {
  it('an invalid event, a refused fact, a recovery and a repair, each once, with its seq', () => {
    const raw = [
      { type: 'wu.defined', stream: 'wu/WU-1', data: { wu_id: 'WU-1', title: 'One', lane: 'L1' } },
      { type: 'wu.claimed', stream: 'wu/WU-1', data: { wu_id: 'WU-1', mode: 'sideways' } },
      { type: 'wu.unblocked', stream: 'wu/WU-1', data: { wu_id: 'WU-1' } },
      {
        type: 'log.recovered',
        stream: 'log/recovery',
        data: { reason: 'torn_tail', segment: '000001.jsonl', offset: 10, bytes: 5, quarantined_to: 'quarantine/000001.jsonl-10.torn', lines_dropped: 0 },
      },
      {
        type: 'log.repaired',
        stream: 'log/recovery',
        data: { reason: 'newline_missing', segment: '000001.jsonl', seq: 4, offset: 99, bytes_changed: 1, replaced: null },
      },
    ];
    const events = raw.map((e, i) => decoded({ v: 1, seq: i + 1, id: `e${i + 1}`, ...e, at: at(i), actor: 'system', prev: '', hash: '' }));
    const findings = auditFindings({
      now: at(10),
      work_units: foldEvents(workUnitsStateProjection, events),
      coordination: foldEvents(tasksStateProjection, events).coordination,
      tasks_findings: [],
      flows: foldEvents(flowProjection, events),
      log: foldEvents(auditLogProjection, events),
      repository: null,
      disk: EMPTY_DISK_FACTS,
      windows: { stall_seconds: 3600, ack_seconds: 3600, flow_phase_seconds: 3600 },
    });
    expect(findings.map((f) => [f.code, f.severity, f.subject.id, f.evidence.events.map((e) => e.seq)])).toEqual([
      ['LOG_EVENT_INVALID', 'error', 'seq 2', [2]],
      ['LOG_FACT_REFUSED', 'warn', 'WU-1', [3]],
      ['LOG_RECOVERED', 'info', 'seq 4', [4]],
      ['LOG_REPAIRED', 'info', 'seq 5', [5]],
    ]);
    expect(findings[0]!.message).toContain('mode');
    expect(findings[2]!.evidence.files[0]!.path).toBe('.baton/quarantine/000001.jsonl-10.torn');
  });
});

describe('repository facts', () => {
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });

  it('take the remote HEAD as the integration branch, else main, unless one is configured; list worktrees and odd paths', () => {
    const origin = makeTempDir('baton-audit-origin-');
    git(origin, 'init', '-q', '-b', 'trunk');
    mkdirSync(join(origin, 'src dir'));
    writeFileSync(join(origin, 'src dir', 'é.ts'), 'x\n');
    git(origin, 'add', '.');
    git(origin, 'commit', '-q', '-m', 'first');
    const clone = join(makeTempDir('baton-audit-clone-'), 'work');
    git(origin, 'clone', '-q', origin, clone);
    git(clone, 'worktree', 'add', '-q', '-b', 'lane/a/wu-1', 'worktrees/a-wu-1');

    const facts = gatherRepositoryFacts(clone, undefined)!;
    expect(facts.integration).toMatchObject({ name: 'origin/trunk', ref: 'refs/remotes/origin/trunk' });
    expect(facts.commits.map((c) => c.paths)).toEqual([['src dir/é.ts']]);
    expect(facts.worktrees.map((w) => [w.relative, w.branch])).toEqual([
      ['.', 'trunk'],
      ['worktrees/a-wu-1', 'lane/a/wu-1'],
    ]);
    expect(Object.keys(facts.branches).sort()).toEqual(['lane/a/wu-1', 'trunk']);
    expect(gatherRepositoryFacts(clone, 'trunk')!.integration).toMatchObject({ name: 'trunk', ref: 'refs/heads/trunk' });
    expect(gatherRepositoryFacts(origin, undefined)!.integration).toEqual({ name: 'main', ref: null, commit: null });
    expect(gatherRepositoryFacts(makeTempDir('baton-audit-plain-'), undefined)).toBeNull();
  });
});
