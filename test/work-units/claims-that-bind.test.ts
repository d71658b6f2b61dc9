import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/workspace.js';
import { at, WuWorkspace } from './helpers.js';

afterAll(removeTempDirs);

/**
 * Claims that bind, through the built binary: the issue's own repro (B checkpoints and finishes A's
 * WU) is refused, a claim needs a holder and checks readiness, and every refusal appends nothing.
 */
const setup = WuWorkspace.shared(async (ws) => {
  await ws.wu(1, 'L1');
  await ws.wu(2, 'L2');
  await ws.wu(3, 'L2', ['--deps', 'WU-2']);
  await ws.wu(4, 'L1');
  const a = await ws.setUpSession();
  const b = await ws.setUpSession();
  await ws.setUpClaim('WU-1', {}, { session: a });
  return { a, b };
});

describe('claims that bind, through the CLI', () => {
  it("another live session's checkpoint, return, block, release and done are NOT_HOLDER (exit 4), naming the holder; nothing appended", async () => {
    const { ws, a, b } = await setup();
    const head = ws.headSeq();
    for (const args of [
      ['wu', 'checkpoint', 'WU-1', '--note', 'not mine'],
      ['wu', 'return', 'WU-1'],
      ['wu', 'block', 'WU-1', '--reason', 'mine now'],
      ['wu', 'release', 'WU-1', '--reason', 'mine now'],
      ['wu', 'done', 'WU-1'],
    ]) {
      const refusal = await ws.fail(args, 4, { session: b, now: at(60) });
      expect(refusal.code).toBe('NOT_HOLDER');
      expect(refusal.message).toContain(`WU-1 is held by ${a}`);
      expect(refusal.message).toMatch(/last sign of life .*; lease lapses /);
    }
    expect(ws.headSeq()).toBe(head);
    // The holder itself goes on.
    await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'halfway'], { session: a, now: at(60) });
  });

  it('a claim with no session and no agent identity is refused (exit 2), naming how to get one; an agent identity may claim', async () => {
    const { ws } = await setup();
    const head = ws.headSeq();
    const refusal = await ws.fail(['wu', 'claim', 'WU-2'], 2, { env: { BATON_AGENT_IDENTITY: undefined } });
    expect(refusal.code).toBe('NO_IDENTITY');
    for (const word of ['--session', 'BATON_SESSION', 'BATON_AGENT_IDENTITY', 'baton session start']) expect(refusal.message).toContain(word);
    expect(ws.headSeq()).toBe(head);
    await ws.ok(['wu', 'claim', 'WU-2'], { env: { BATON_AGENT_IDENTITY: 'claude:docs' } });
    expect(ws.events().at(-1)!.data).toMatchObject({ session_id: null, agent_identity: 'claude:docs' });
  });

  it('readiness: unfinished dependencies and a lane at its WIP limit are refused (exit 4); --force --reason is recorded and explained', async () => {
    const { ws, b } = await setup();
    const head = ws.headSeq();
    const deps = await ws.fail(['wu', 'claim', 'WU-3'], 4, { session: b });
    expect([deps.code, deps.message]).toEqual([
      'DEPENDENCIES_NOT_DONE',
      'WU-3 depends on WU-2, not done yet; finish them first, or claim with --force --reason R',
    ]);
    const lane = await ws.fail(['wu', 'claim', 'WU-4'], 4, { session: b });
    expect(lane.code).toBe('LANE_AT_WIP_LIMIT');
    expect(lane.message).toContain('held by WU-1');
    expect((await ws.fail(['wu', 'claim', 'WU-4', '--force'], 2, { session: b })).message).toBe('--reason: required with force (say why)');
    expect(ws.headSeq()).toBe(head);
    await ws.ok(['wu', 'claim', 'WU-4', '--force', '--reason', 'hotfix for the release'], { session: b });
    expect(ws.events().at(-1)!.data).toMatchObject({ forced: ['lane'], reason: 'hotfix for the release' });
    const explained = await ws.explain('WU-4');
    expect(JSON.stringify(explained)).toContain('hotfix for the release');
  });

  it('a lapsed holder is taken over only with --takeover --reason; an orchestrator finishes a returned WU', async () => {
    const { ws, a, b } = await setup();
    const later = at(5 * 3600); // past A's default four-hour TTL
    const plain = await ws.fail(['wu', 'claim', 'WU-1'], 4, { session: b, now: later });
    expect(plain.message).toContain('--takeover --reason R');
    await ws.ok(['wu', 'claim', 'WU-1', '--takeover', '--reason', 'A went silent'], { session: b, now: later });
    expect(ws.events().at(-1)!.data).toMatchObject({ session_id: b, takeover_from: a, reason: 'A went silent' });
    await ws.ok(['wu', 'return', 'WU-1'], { session: b, now: later });
    const o = await ws.startSession({ now: later });
    expect((await ws.fail(['wu', 'done', 'WU-1'], 4, { session: o, now: later })).code).toBe('NOT_HOLDER');
    const orchestrator = (await ws.ok(['session', 'start', '--role', 'orchestrator'], { now: later })).last as { session: { id: string } };
    await ws.ok(['wu', 'done', 'WU-1'], { session: orchestrator.session.id, now: later });
    expect(ws.events().find((e) => e.type === 'wu.stamped')!.data).toMatchObject({ finished_for: b });
  });

  it('a sessionless claim already in a log stays readable: wu explain shows it unowned, and any session may act on it', async () => {
    const { ws, b } = await setup();
    const data = { wu_id: 'WU-2', session_id: null, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null };
    await ws.inject('wu.claimed', 'wu/WU-2', data);
    const explained = await ws.explain('WU-2');
    expect(explained.claim).toMatchObject({ unowned: true, session: null, live: false });
    const human = await ws.run(['wu', 'explain', 'WU-2', '--human']);
    expect(human.stdout).toContain('unowned (claimed without a session by an older Baton');
    await ws.ok(['wu', 'checkpoint', 'WU-2', '--note', 'picking it up'], { session: b });
  });
});
