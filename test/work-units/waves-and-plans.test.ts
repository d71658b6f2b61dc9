import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/workspace.js';
import { actionFor, row, stateOf, WuWorkspace } from './helpers.js';

/** work-units.md §17 scenarios 1–9: waves and plans. */
afterAll(removeTempDirs);

describe.concurrent('waves and plans', () => {
  it('1: a chain plans one wave per logical wave', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.wu(2, 'L2', ['--deps', 'WU-1']);
    await ws.wu(3, 'L3', ['--deps', 'WU-2']);
    const plan = await ws.plan();
    expect(plan.logical_waves).toEqual([0, 1, 2]);
    expect(plan.waves.map((w) => [w.planned_wave, w.wus.map((u) => u.id)])).toEqual([
      [0, ['WU-1']],
      [1, ['WU-2']],
      [2, ['WU-3']],
    ]);
    expect(plan.waves[2]!.wus[0]!.logical_wave).toBe(2);
  });

  it('2: the logical wave is the longest path', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.wu(2, 'L2', ['--deps', 'WU-1']);
    await ws.wu(3, 'L3', ['--deps', 'WU-1,WU-2']);
    const plan = await ws.plan();
    expect(plan.waves.flatMap((w) => w.wus).find((u) => u.id === 'WU-3')!.logical_wave).toBe(2);
  });

  it('3: two WUs of one lane go in successive planned waves', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.wu(2, 'L1');
    const plan = await ws.plan();
    expect(plan.waves[0]).toEqual({ planned_wave: 0, logical_wave: 0, logical_waves: [0], wus: [{ id: 'WU-1', lane: 'L1', logical_wave: 0 }] });
    expect(plan.waves[1]).toEqual({ planned_wave: 1, logical_wave: 0, logical_waves: [0], wus: [{ id: 'WU-2', lane: 'L1', logical_wave: 0 }] });
  });

  it('4: a planned wave can hold several logical waves', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.wu(2, 'L1');
    await ws.wu(3, 'L2', ['--deps', 'WU-1']);
    const plan = await ws.plan();
    expect(plan.waves[1]!.wus.map((u) => u.id)).toEqual(['WU-2', 'WU-3']);
    expect(plan.waves[1]!.logical_waves).toEqual([0, 1]);
    expect(plan.logical_waves).toEqual([0, 1]);
  });

  it('5: a dependency cycle fails plan, run and status with DEPENDENCY_CYCLE and writes nothing', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1', ['--deps', 'WU-2']);
    await ws.wu(2, 'L2', ['--deps', 'WU-1']);
    for (const command of ['plan', 'run', 'status']) {
      const error = await ws.fail(['orchestrate', command, 'INIT-1'], 2);
      expect(error.code).toBe('DEPENDENCY_CYCLE');
      expect(error.message).toContain('WU-1 -> WU-2 -> WU-1');
      expect(error.details?.['cycle']).toEqual(['WU-1', 'WU-2', 'WU-1']);
    }
    expect(existsSync(join(ws.dir, '.baton', 'artifacts'))).toBe(false);
  });

  it('6: YAML dependencies schedule like created ones', async () => {
    const ws = await WuWorkspace.create();
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(join(ws.dir, 'wus'));
    writeFileSync(join(ws.dir, 'wus', 'WU-2.yaml'), 'id: WU-2\ntitle: Two\ninitiative: INIT-1\nlane: L2\nstatus: ready\ndependencies: [WU-1]\n');
    await ws.ok(['wu', 'import', join(ws.dir, 'wus')]);
    await ws.wu(1, 'L1');
    const plan = await ws.plan();
    const wave = (id: string) => plan.waves.find((w) => w.wus.some((u) => u.id === id))!;
    expect(wave('WU-2').wus.find((u) => u.id === 'WU-2')!.logical_wave).toBe(1);
    expect(wave('WU-2').planned_wave).toBeGreaterThan(wave('WU-1').planned_wave);
  });

  it('7: an unknown external dependency defers, and its stamp observation releases it', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(2, 'L1', ['--deps', 'WU-99']);
    let status = await ws.status();
    expect(stateOf(status, 'WU-2')).toBe('planned');
    expect(actionFor(status, 'WU-2')).toMatchObject({ type: 'wait', reason: 'Waiting for WU-99 to complete.' });
    expect((await ws.plan()).deferred).toEqual([{ wu_id: 'WU-2', reason: 'Waiting for WU-99 to complete.' }]);
    await ws.inject('observation.stamp_file', 'wu/WU-99', { wu_id: 'WU-99', path: '.lumenflow/stamps/WU-99.done', present: true, valid: true });
    status = await ws.status();
    expect(stateOf(status, 'WU-2')).toBe('eligible');
    expect(actionFor(status, 'WU-2')).toMatchObject({ type: 'launch_wu' });
  });

  it('8: plan is a dry run: launch_attempt 0, nothing appended, no artifacts', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const head = ws.headSeq();
    const plan = await ws.plan();
    expect(plan.dry_run).toBe(true);
    expect(plan.launch_attempt).toBe(0);
    const stats = (await ws.ok(['log', 'stats'])).last as { head_seq: number };
    expect(stats.head_seq).toBe(head);
    expect(existsSync(join(ws.dir, '.baton', 'artifacts'))).toBe(false);
  });

  it('9: a blocked claim holds its lane under policy all, not under policy active', async () => {
    for (const policy of ['active', 'all'] as const) {
      const ws = await WuWorkspace.create(policy === 'active' ? { config: 'lanes:\n  L1: { lock_policy: active }\n' } : {});
      const s1 = await ws.startSession();
      await ws.wu(1, 'L1');
      await ws.wu(2, 'L1');
      await ws.ok(['wu', 'claim', 'WU-1'], { session: s1 });
      await ws.ok(['wu', 'block', 'WU-1', '--reason', 'waiting'], { session: s1 });
      const status = await ws.status();
      if (policy === 'active') {
        expect(actionFor(status, 'WU-2')).toMatchObject({ type: 'launch_wu' });
      } else {
        expect(actionFor(status, 'WU-2')).toMatchObject({ type: 'wait', reason: 'Lane L1 is at its WIP limit (1).' });
        expect(row(status, 'WU-2').launch_blocked_by).toEqual(['lane']);
      }
    }
  });
});
