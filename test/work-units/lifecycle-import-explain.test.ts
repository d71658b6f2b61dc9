import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InitiativeStatusEnvelope, WuDoneEnvelope, WuImportEnvelope } from '../../src/app/envelopes/work-units.js';
import { parseOrchestrationStatusDocument } from '../../projections/work-units/documents.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { at, HOUR, row, stateOf, WuWorkspace } from './helpers.js';

/** work-units.md §17 scenarios 37 and 45–54: lifecycle, stamps, import, parsers, explain, replay, prep. */
afterAll(removeTempDirs);

describe.concurrent('lifecycle, stamps, import, parsers, explain', () => {
  it('45: wu done writes the stamp once; a second call says already_exists', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.ok(['wu', 'claim', 'WU-1']);
    const first = WuDoneEnvelope.parse((await ws.ok(['wu', 'done', 'WU-1'])).last);
    expect(first.already_exists).toBe(false);
    expect(readFileSync(join(ws.dir, '.baton', 'stamps', 'WU-1.done'), 'utf8')).toBe('WU WU-1 — T1\nCompleted: 2026-04-17\n');
    const second = WuDoneEnvelope.parse((await ws.ok(['wu', 'done', 'WU-1'])).last);
    expect(second.already_exists).toBe(true);
    expect(ws.events().filter((e) => e.type === 'wu.stamped')).toHaveLength(1);
    // The stamp is a projection: an altered one is rewritten by the next status.
    writeFileSync(join(ws.dir, '.baton', 'stamps', 'WU-1.done'), 'tampered\n');
    await ws.status();
    expect(readFileSync(join(ws.dir, '.baton', 'stamps', 'WU-1.done'), 'utf8')).toBe('WU WU-1 — T1\nCompleted: 2026-04-17\n');
  });

  it('46: done needs a claim; a done WU refuses claim and checkpoint naming the terminal state', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    expect((await ws.fail(['wu', 'done', 'WU-1'], 2)).code).toBe('ILLEGAL_TRANSITION');
    expect(existsSync(join(ws.dir, '.baton', 'stamps', 'WU-1.done'))).toBe(false);
    await ws.ok(['wu', 'claim', 'WU-1']);
    await ws.ok(['wu', 'done', 'WU-1']);
    for (const args of [
      ['wu', 'claim', 'WU-1'],
      ['wu', 'checkpoint', 'WU-1', '--note', 'n'],
    ]) {
      const error = await ws.fail(args, 2);
      expect(error.code).toBe('ILLEGAL_TRANSITION');
      expect(error.message).toContain('terminal state done');
    }
  });

  it('47, 49: import is all-or-nothing and records only changes; an imported ready WU is eligible', async () => {
    const ws = await WuWorkspace.create();
    const folder = join(ws.dir, 'wus');
    mkdirSync(folder);
    const yaml = (title: string) => `id: WU-1\ntitle: ${title}\ninitiative: INIT-1\nlane: L1\nstatus: ready\n# a comment\nnotes: not read\n`;
    writeFileSync(join(folder, 'WU-1.yaml'), yaml('One'));
    writeFileSync(join(folder, 'INIT-1.yaml'), 'id: INIT-1\ntitle: An initiative\n');
    const first = WuImportEnvelope.parse((await ws.ok(['wu', 'import', folder])).last);
    expect(first.files.map((f) => [f.path, f.result])).toEqual([
      ['wus/INIT-1.yaml', 'skipped'],
      ['wus/WU-1.yaml', 'defined'],
    ]);
    writeFileSync(join(folder, 'WU-1.yaml'), yaml('One').replace('# a comment', '# another comment').replace('not read', 'still not read'));
    const second = WuImportEnvelope.parse((await ws.ok(['wu', 'import', folder])).last);
    expect(second.files.find((f) => f.wu_id === 'WU-1')!.result).toBe('unchanged');
    expect(second.appended).toBe(0);
    writeFileSync(join(folder, 'WU-1.yaml'), yaml('Uno'));
    const third = WuImportEnvelope.parse((await ws.ok(['wu', 'import', folder])).last);
    expect(third.files.find((f) => f.wu_id === 'WU-1')).toMatchObject({ result: 'changed', changed_fields: ['title'] });
    expect(ws.events().at(-1)!.data['fields']).toEqual({ title: 'Uno' });
    // 49
    const status = await ws.status();
    expect(row(status, 'WU-1')).toMatchObject({ yaml_status: 'ready', orchestration_state: 'eligible' });
  });

  it('48: one invalid file fails the whole import, naming the file and the field', async () => {
    const ws = await WuWorkspace.create();
    const folder = join(ws.dir, 'wus');
    mkdirSync(folder);
    writeFileSync(join(folder, 'WU-1.yaml'), 'id: WU-1\ntitle: One\nlane: L1\nstatus: ready\n');
    writeFileSync(join(folder, 'WU-2.yaml'), 'id: WU-2\ntitle: Two\nstatus: ready\n');
    const head = ws.headSeq();
    const error = await ws.fail(['wu', 'import', folder], 2);
    expect(error.message).toContain('WU-2.yaml');
    expect(error.message).toContain('lane');
    expect(ws.headSeq()).toBe(head);
  });

  it('50: the status parser reads legacy ready as eligible and rejects an unknown state by path', () => {
    const doc = (state: string) => ({
      initiative: 'INIT-1',
      launch_attempt: null,
      generated_at: '2026-04-17T10:00:00.000Z',
      logical_waves: [0],
      available_capacity: null,
      max_active_workers: null,
      blocked_by_integrity: false,
      integrity_findings: [],
      next_safe_actions: [],
      wus: [
        {
          wu_id: 'WU-1',
          title: 'T',
          lane: 'L1',
          orchestration_state: state,
          yaml_status: 'ready',
          logical_wave: 0,
          planned_wave: 0,
          launch_attempt: null,
          claimed_mode: null,
          contamination_paths: [],
          queued_by_capacity: false,
          launch_blocked_by: [],
          blockers: [],
          last_activity_at: null,
          worktree_path: null,
          extra: 'kept',
        },
      ],
    });
    const parsed = parseOrchestrationStatusDocument(doc('ready'));
    expect(parsed.wus[0]!.orchestration_state).toBe('eligible');
    expect((parsed.wus[0] as Record<string, unknown>)['extra']).toBe('kept');
    expect(() => parseOrchestrationStatusDocument(doc('bogus'))).toThrow(/wus\[0\]\.orchestration_state/);
  });

  it('51: explain names rule 8 and the claim and worktree events behind a stall', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.ok(['wu', 'claim', 'WU-1']);
    await ws.inject('observation.worktree', 'wu/WU-1', { wu_id: 'WU-1', path: 'worktrees/l1-wu-1', present: true, branch: 'lane/l1/wu-1' });
    const seqOf = (type: string) => ws.events().find((e) => e.type === type)!.seq;
    const explanation = await ws.explain('WU-1', { now: at(5 * HOUR) });
    expect(explanation.orchestration_state).toBe('stalled');
    expect(explanation.rule).toBe(8);
    const seqs = explanation.evidence.map((e) => e.seq);
    expect(seqs).toContain(seqOf('wu.claimed'));
    expect(seqs).toContain(seqOf('observation.worktree'));
  });

  it('52, 53: replay shows the status before and at the handoff; status is deterministic and appends nothing', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.launch();
    const n = ws.events().find((e) => e.type === 'handoff.emitted')!.seq;
    const replayed = async (to: number) =>
      InitiativeStatusEnvelope.parse((await ws.ok(['replay', '--view', 'initiative-status', '--to', String(to), 'INIT-1'])).last);
    expect(stateOf(await replayed(n - 1), 'WU-1')).toBe('eligible');
    expect(stateOf(await replayed(n), 'WU-1')).toBe('handoff_emitted');
    const explained = (await ws.ok(['replay', '--view', 'wu-explain', '--to', String(n - 1), 'WU-1'])).last as { orchestration_state: string; rule: number };
    expect(explained).toMatchObject({ orchestration_state: 'eligible', rule: 12 });
    const plan = (await ws.ok(['replay', '--view', 'initiative-plan', '--to', String(n - 1), 'INIT-1'])).last as { waves: { wus: { id: string }[] }[] };
    expect(plan.waves[0]!.wus.map((u) => u.id)).toEqual(['WU-1']);
    // 53
    const a = await ws.ok(['orchestrate', 'status', 'INIT-1']);
    const head = ws.headSeq();
    const b = await ws.ok(['orchestrate', 'status', 'INIT-1']);
    expect(b.stdout).toBe(a.stdout);
    expect(ws.headSeq()).toBe(head);
  });

  it('54: prep refuses a contaminated worktree-mode WU with exit 3', async () => {
    const ws = await WuWorkspace.create();
    const s1 = await ws.startSession();
    await ws.wu(1, 'L1', ['--code-paths', 'src/a/**']);
    await ws.ok(['wu', 'claim', 'WU-1'], { session: s1 });
    await ws.inject('observation.dirty_paths', 'workspace/root', { paths: ['src/a/x.ts'] });
    const error = await ws.fail(['wu', 'prep', 'WU-1'], 3, { session: s1 });
    expect(error.code).toBe('CONTAMINATED');
    expect(error.message).toContain('src/a/x.ts');
  });

  it('37: in a git repository the dirty probe records an untracked file once and contaminates the WU', async () => {
    const ws = await WuWorkspace.create();
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: ws.dir,
        stdio: 'pipe',
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(ws.dir, '.gitignore'), '.baton/\n');
    git('add', '.gitignore');
    git('commit', '-q', '-m', 'one');
    await ws.wu(1, 'L1', ['--code-paths', 'packages/x']);
    await ws.launch();
    mkdirSync(join(ws.dir, 'packages', 'x'), { recursive: true });
    writeFileSync(join(ws.dir, 'packages', 'x', 'new.ts'), 'export {};\n');
    const status = await ws.status();
    expect(stateOf(status, 'WU-1')).toBe('contaminated');
    expect(row(status, 'WU-1').contamination_paths).toEqual(['packages/x/new.ts']);
    const observations = () => ws.events().filter((e) => e.type === 'observation.dirty_paths').length;
    expect(observations()).toBe(1);
    await ws.status();
    expect(observations()).toBe(1);
  });
});
