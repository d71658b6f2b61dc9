import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/workspace.js';
import { actionFor, at, HOUR, row, stateOf, WuWorkspace } from './helpers.js';

/** work-units.md §17 scenarios 19–33: the orchestration states. */
afterAll(removeTempDirs);

async function importYaml(ws: WuWorkspace, name: string, text: string): Promise<void> {
  mkdirSync(join(ws.dir, 'wus'), { recursive: true });
  writeFileSync(join(ws.dir, 'wus', name), text);
  await ws.ok(['wu', 'import', join(ws.dir, 'wus', name)]);
}

/** WU-1 (L1) claimed at T0 (optionally by a session) with its worktree observed present. */
async function claimedWithWorktree(ws: WuWorkspace, session?: string): Promise<void> {
  await ws.wu(1, 'L1');
  await ws.setUpClaim('WU-1', {}, session !== undefined ? { session } : {});
  await ws.inject('observation.worktree', 'wu/WU-1', { wu_id: 'WU-1', path: 'worktrees/l1-wu-1', present: true, branch: 'lane/l1/wu-1' });
}

/** INIT-1 (built once, copied for each test). */
const initiative = WuWorkspace.shared(async () => ({}));
const fresh = async (): Promise<WuWorkspace> => (await initiative()).ws;
/** INIT-1 with WU-1 claimed at T0, its worktree observed present (built once, copied for each test). */
const claimed = WuWorkspace.shared(async (ws) => {
  await claimedWithWorktree(ws);
  return {};
});

describe.concurrent('orchestration states', () => {
  it('19: an in_progress YAML WU with a valid stamp observation is done, with no action', async () => {
    const ws = await fresh();
    await importYaml(ws, 'WU-1.yaml', 'id: WU-1\ntitle: One\ninitiative: INIT-1\nlane: L1\nstatus: in_progress\n');
    await ws.inject('observation.stamp_file', 'wu/WU-1', { wu_id: 'WU-1', path: '.lumenflow/stamps/WU-1.done', present: true, valid: true });
    const status = await ws.status();
    expect(stateOf(status, 'WU-1')).toBe('done');
    expect(actionFor(status, 'WU-1')).toBeUndefined();
  });

  it('20: a done YAML WU without a stamp is done', async () => {
    const ws = await fresh();
    await importYaml(ws, 'WU-1.yaml', 'id: WU-1\ntitle: One\ninitiative: INIT-1\nlane: L1\nstatus: done\n');
    expect(stateOf(await ws.status(), 'WU-1')).toBe('done');
  });

  it('21, 22: a dependent waits for its dependency, then is eligible once it is stamped', async () => {
    const ws = await fresh();
    await ws.wu(1, 'L1');
    await ws.wu(2, 'L2', ['--deps', 'WU-1']);
    let status = await ws.status();
    expect(stateOf(status, 'WU-2')).toBe('planned');
    expect(actionFor(status, 'WU-2')).toMatchObject({ type: 'wait', reason: 'Waiting for WU-1 to complete.' });
    expect(status.next_safe_actions.some((a) => a.type === 'launch_wu' && a.wu_id === 'WU-2')).toBe(false);
    await ws.setUpClaim('WU-1');
    await ws.ok(['wu', 'done', 'WU-1']);
    status = await ws.status();
    expect(stateOf(status, 'WU-2')).toBe('eligible');
    expect(actionFor(status, 'WU-2')).toMatchObject({ type: 'launch_wu', reason: 'Ready to launch.' });
  });

  it('23, 24: handoff_emitted, then claimed (yaml in_progress), then active after a checkpoint', async () => {
    const ws = await fresh();
    const s1 = await ws.setUpSession();
    await ws.wu(1, 'L1');
    await ws.launch();
    let status = await ws.status();
    expect(stateOf(status, 'WU-1')).toBe('handoff_emitted');
    expect(actionFor(status, 'WU-1')).toMatchObject({ type: 'wait', reason: 'Handoff emitted; waiting for pickup.' });
    await ws.setUpClaim('WU-1', {}, { session: s1 });
    status = await ws.status();
    expect(stateOf(status, 'WU-1')).toBe('claimed');
    expect(row(status, 'WU-1').yaml_status).toBe('in_progress');
    await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'n'], { session: s1 });
    expect(stateOf(await ws.status(), 'WU-1')).toBe('active');
  });

  it('25, 26: stalled after the threshold (strictly), recovered by a signal about the WU', async () => {
    const { ws } = await claimed();
    expect(stateOf(await ws.status({ now: at(600) }), 'WU-1')).toBe('active');
    const stalled = await ws.status({ now: at(5 * HOUR) });
    expect(stateOf(stalled, 'WU-1')).toBe('stalled');
    expect(stalled.next_safe_actions[0]).toEqual({
      type: 'recover_wu',
      wu_id: 'WU-1',
      reason: 'No activity for 5h 0m (threshold 4h); investigate before relaunching.',
      logical_wave: 0,
    });
    // 26: exactly at the threshold it is not stalled; a signal about the WU is activity.
    expect(stateOf(await ws.status({ now: at(4 * HOUR) }), 'WU-1')).toBe('active');
    await ws.ok(['mem', 'signal', 'still going', '--wu', 'WU-1'], { now: at(4 * HOUR) });
    expect(stateOf(await ws.status({ now: at(5 * HOUR) }), 'WU-1')).toBe('active');
  });

  it("27: the claimant's heartbeat counts as activity", async () => {
    const ws = await fresh();
    const s1 = await ws.setUpSession();
    await claimedWithWorktree(ws, s1);
    await ws.ok(['session', 'heartbeat', s1], { now: at(3 * HOUR), session: s1 });
    expect(stateOf(await ws.status({ now: at(5 * HOUR) }), 'WU-1')).toBe('active');
  });

  it('28: a return with the worktree present is ready_for_finish', async () => {
    const { ws } = await claimed();
    await ws.ok(['wu', 'return', 'WU-1']);
    const status = await ws.status();
    expect(stateOf(status, 'WU-1')).toBe('ready_for_finish');
    expect(actionFor(status, 'WU-1')).toMatchObject({ type: 'finish_wu', reason: 'Worker returned; run baton wu prep WU-1, then baton wu done WU-1.' });
  });

  it('29: a branch-pr claim whose delegation completed awaits the merge', async () => {
    const ws = await fresh();
    await ws.wu(1, 'L1');
    await ws.setUpClaim('WU-1', { mode: 'branch-pr' });
    await ws.inject('delegation.completed', 'wu/WU-1', { wu_id: 'WU-1', delegation_id: 'dlg-1' });
    const status = await ws.status();
    expect(stateOf(status, 'WU-1')).toBe('awaiting_merge');
    expect(actionFor(status, 'WU-1')).toMatchObject({ type: 'wait', reason: 'Waiting for PR merge and cleanup.' });
  });

  it('30, 32: returned with the workspace gone needs a relaunch; the relaunch makes a new window a new session can claim', async () => {
    for (const branchPresent of [true, false]) {
      const { ws } = await claimed();
      await ws.ok(['wu', 'return', 'WU-1']);
      await ws.inject('observation.worktree', 'wu/WU-1', { wu_id: 'WU-1', path: 'worktrees/l1-wu-1', present: false, branch: null });
      await ws.inject('observation.branch', 'wu/WU-1', { wu_id: 'WU-1', branch: 'lane/l1/wu-1', present: branchPresent });
      const status = await ws.status();
      if (branchPresent) {
        expect(stateOf(status, 'WU-1')).toBe('worker_returned');
        expect(actionFor(status, 'WU-1')).toMatchObject({ type: 'wait' });
        continue;
      }
      expect(stateOf(status, 'WU-1')).toBe('needs_relaunch');
      expect(actionFor(status, 'WU-1')).toMatchObject({ type: 'relaunch_wu' });
      // 32
      const launch = await ws.launch();
      expect(launch.launch_attempt).toBe(0);
      const handoff = ws
        .events()
        .filter((e) => e.type === 'handoff.emitted')
        .at(-1)!;
      expect(handoff.data['relaunch']).toBe(true);
      const after = await ws.status();
      expect(stateOf(after, 'WU-1')).toBe('handoff_emitted');
      expect(row(after, 'WU-1').yaml_status).toBe('ready');
      const s2 = await ws.startSession();
      await ws.ok(['wu', 'claim', 'WU-1'], { session: s2 });
    }
  });

  it('31: a blocked WU is blocked, never stalled', async () => {
    const { ws } = await claimed();
    await ws.ok(['wu', 'block', 'WU-1', '--reason', 'waiting on API']);
    const status = await ws.status({ now: at(10 * HOUR) });
    expect(stateOf(status, 'WU-1')).toBe('blocked');
    expect(actionFor(status, 'WU-1')).toMatchObject({ type: 'wait', reason: 'Blocked: waiting on API.' });
  });

  it('33: a live claimant wins; the same session is idempotent; an ended claimant is taken over (explicitly, with a reason)', async () => {
    const ws = await fresh();
    const s1 = await ws.startSession();
    const s2 = await ws.startSession();
    await ws.wu(1, 'L1');
    await ws.ok(['wu', 'claim', 'WU-1'], { session: s1 });
    const head = ws.headSeq();
    const lost = await ws.fail(['wu', 'claim', 'WU-1'], 4, { session: s2 });
    expect(lost.code).toBe('ALREADY_CLAIMED');
    await ws.ok(['wu', 'claim', 'WU-1'], { session: s1 });
    expect(ws.headSeq()).toBe(head);
    await ws.ok(['session', 'end', s1], { session: s1 });
    expect((await ws.fail(['wu', 'claim', 'WU-1'], 4, { session: s2 })).code).toBe('NOT_HOLDER');
    await ws.ok(['wu', 'claim', 'WU-1', '--takeover', '--reason', 'its claimant ended'], { session: s2 });
    const claim = ws
      .events()
      .filter((e) => e.type === 'wu.claimed')
      .at(-1)!;
    expect(claim.data['takeover_from']).toBe(s1);
    expect(claim.data['session_id']).toBe(s2);
    expect(claim.data['reason']).toBe('its claimant ended');
  });
});
