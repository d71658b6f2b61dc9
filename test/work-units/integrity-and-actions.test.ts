import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/workspace.js';
import { actionFor, row, stateOf, WuWorkspace } from './helpers.js';

/** work-units.md §17 scenarios 34–36, 38 (contamination) and 39–44 (actions, capacity, ordering). */
afterAll(removeTempDirs);

const dirty = (ws: WuWorkspace, paths: string[]) => ws.inject('observation.dirty_paths', 'workspace/root', { paths });

describe.concurrent('contamination and integrity', () => {
  it('34, 36: a handed-off WU with a dirty path under its code paths is contaminated and blocks every launch', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1', ['--code-paths', 'src/a/**']);
    await ws.launch();
    await ws.wu(2, 'L2');
    await dirty(ws, ['src/a/x.ts']);
    const status = await ws.status();
    expect(stateOf(status, 'WU-1')).toBe('contaminated');
    expect(row(status, 'WU-1').contamination_paths).toEqual(['src/a/x.ts']);
    expect(status.blocked_by_integrity).toBe(true);
    expect(status.next_safe_actions[0]).toMatchObject({ type: 'recover_wu', wu_id: 'WU-1' });
    // 36
    expect(status.next_safe_actions.some((a) => a.type === 'launch_wu')).toBe(false);
    expect(row(status, 'WU-2').launch_blocked_by).toEqual(['integrity']);
    const head = ws.headSeq();
    const error = await ws.fail(['orchestrate', 'run', 'INIT-1'], 3);
    expect(error.code).toBe('INTEGRITY_BLOCKED');
    expect(error.message).toContain('WU-1');
    expect(ws.headSeq()).toBe(head);
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${ws.dir}/.baton/artifacts/orchestration/INIT-1/attempt-1`)).toBe(false);
  });

  it('35: an eligible WU is never contaminated', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1', ['--code-paths', 'src/a/**']);
    await dirty(ws, ['src/a/x.ts']);
    const status = await ws.status();
    expect(stateOf(status, 'WU-1')).toBe('eligible');
    expect(status.blocked_by_integrity).toBe(false);
  });

  it('38: a branch-only claim is not contaminated by the root checkout', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1', ['--code-paths', 'src/a/**']);
    await ws.ok(['wu', 'claim', 'WU-1', '--mode', 'branch-only']);
    await dirty(ws, ['src/a/x.ts']);
    expect(stateOf(await ws.status(), 'WU-1')).not.toBe('contaminated');
  });
});

describe.concurrent('actions, capacity, ordering', () => {
  it('39: actions are ordered recover, finish, relaunch, launch, wait; integrity holds relaunch and launch', async () => {
    const ws = await WuWorkspace.create();
    // stalled (L1), ready_for_finish (L2), needs_relaunch (L3), eligible (L4), planned (L5)
    for (const [n, lane] of [
      [1, 'L1'],
      [2, 'L2'],
      [3, 'L3'],
    ] as const) {
      await ws.wu(n, lane);
      await ws.ok(['wu', 'claim', `WU-${n}`]);
    }
    await ws.inject('observation.worktree', 'wu/WU-1', { wu_id: 'WU-1', path: 'worktrees/l1-wu-1', present: true, branch: null });
    await ws.inject('observation.worktree', 'wu/WU-2', { wu_id: 'WU-2', path: 'worktrees/l2-wu-2', present: true, branch: null });
    await ws.ok(['wu', 'return', 'WU-2']);
    await ws.ok(['wu', 'return', 'WU-3']);
    await ws.wu(4, 'L4');
    await ws.wu(5, 'L5', ['--deps', 'WU-99']);
    const later = { now: '2026-04-17T15:00:00Z' };
    let status = await ws.status(later);
    expect(status.next_safe_actions.map((a) => a.type)).toEqual(['recover_wu', 'finish_wu', 'relaunch_wu', 'launch_wu', 'wait']);
    await ws.wu(6, 'L6', ['--code-paths', 'src/**'], later);
    await ws.ok(['wu', 'claim', 'WU-6'], later);
    await ws.inject('observation.worktree', 'wu/WU-6', { wu_id: 'WU-6', path: 'worktrees/l6-wu-6', present: true, branch: null }, later);
    await dirty(ws, ['src/z.ts']);
    status = await ws.status(later);
    expect(stateOf(status, 'WU-6')).toBe('contaminated');
    expect(status.next_safe_actions.map((a) => a.type)).toEqual(['recover_wu', 'recover_wu', 'finish_wu', 'wait', 'wait', 'wait']);
  });

  it('40: launches are ordered by numeric id', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(12, 'L1');
    await ws.wu(3, 'L2');
    const launches = (await ws.status()).next_safe_actions.filter((a) => a.type === 'launch_wu').map((a) => a.wu_id);
    expect(launches).toEqual(['WU-3', 'WU-12']);
  });

  it('41: --max-active-workers 1 with one active WU queues the rest in one wait', async () => {
    const ws = await WuWorkspace.create({ config: 'orchestration:\n  max_active_workers: 2\n' });
    await ws.wu(1, 'L1');
    await ws.ok(['wu', 'claim', 'WU-1']);
    await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'going']);
    await ws.wu(2, 'L2');
    await ws.wu(3, 'L3');
    const status = await ws.status({ args: ['--max-active-workers', '1'] });
    expect(status.max_active_workers).toBe(1);
    expect(status.available_capacity).toBe(0);
    expect(row(status, 'WU-2').queued_by_capacity).toBe(true);
    expect(row(status, 'WU-3').queued_by_capacity).toBe(true);
    const waits = status.next_safe_actions.filter((a) => a.wu_ids !== undefined);
    expect(waits).toEqual([
      { type: 'wait', wu_id: 'WU-2', wu_ids: ['WU-2', 'WU-3'], logical_wave: 0, reason: 'Queued until worker capacity frees (remaining capacity: 0).' },
    ]);
  });

  it('42: capacity launches the lowest waves first and queues the rest', async () => {
    const ws = await WuWorkspace.create({ config: 'orchestration:\n  max_active_workers: 3\n' });
    await ws.wu(1, 'L1');
    await ws.ok(['wu', 'claim', 'WU-1']);
    await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'going']);
    await ws.wu(5, 'L2');
    await ws.wu(7, 'L3');
    await ws.wu(8, 'L5');
    await ws.ok(['wu', 'claim', 'WU-8']);
    await ws.ok(['wu', 'done', 'WU-8']);
    await ws.wu(9, 'L4', ['--deps', 'WU-8']);
    const status = await ws.status();
    expect(status.available_capacity).toBe(2);
    expect(status.next_safe_actions.filter((a) => a.type === 'launch_wu').map((a) => a.wu_id)).toEqual(['WU-5', 'WU-7']);
    expect(row(status, 'WU-9').queued_by_capacity).toBe(true);
  });

  it('43: max_active_workers 0 pauses launches; run creates no attempt', async () => {
    const ws = await WuWorkspace.create({ config: 'orchestration:\n  max_active_workers: 0\n' });
    await ws.wu(1, 'L1');
    await ws.ok(['wu', 'claim', 'WU-1']);
    await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'going']);
    await ws.wu(2, 'L2');
    const status = await ws.status();
    expect(status.next_safe_actions.some((a) => a.type === 'launch_wu')).toBe(false);
    expect(stateOf(status, 'WU-1')).toBe('active');
    expect(row(status, 'WU-2').queued_by_capacity).toBe(true);
    expect((await ws.launch()).launch_attempt).toBeNull();
  });

  it('44: two eligible WUs of one lane: one launches, the other waits on the lane', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    await ws.wu(2, 'L1');
    const status = await ws.status();
    expect(status.next_safe_actions.filter((a) => a.type === 'launch_wu').map((a) => a.wu_id)).toEqual(['WU-1']);
    expect(row(status, 'WU-2').launch_blocked_by).toEqual(['lane']);
    expect(actionFor(status, 'WU-2')).toMatchObject({ type: 'wait' });
  });
});
