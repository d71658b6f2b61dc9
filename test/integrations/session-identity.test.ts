import { afterAll, describe, expect, it } from 'vitest';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { workspace } from '../helpers/coordination.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * Identity on writes: a `--session` / `BATON_SESSION` naming no live session is refused
 * by every command that appends (exit 2, UNKNOWN_SESSION, nothing appended); a live session's
 * display name is accepted wherever its id is, reads included.
 */
describe('identity checks on writes', () => {
  it('a typo, an unknown id or an ended session cannot append; the claim stays with its claimant', async () => {
    const ws = await workspace();
    await ws.withWus('WU-3');
    const planck = await ws.start();
    const ended = await ws.start();
    // An unread signal for the session that then ends: marking it read would append as that session.
    await ws.signal('for the ended one', ['--to', ended], { as: planck });
    await ws.ok(['session', 'end', ended]);
    const head = ws.head();
    // Today's bug: `--session typo wu claim WU-3` recorded the typo as the claimant.
    const typo = await ws.run(['wu', 'claim', 'WU-3'], { as: 'typo' });
    expect([typo.code, errorEnvelopeOf(typo).code]).toEqual([2, 'UNKNOWN_SESSION']);
    expect(ws.head()).toBe(head);
    await ws.ok(['wu', 'claim', 'WU-3'], { as: planck });
    const claimedAt = ws.head();
    const beforeAttempts = ws.head();
    expect(beforeAttempts).toBe(claimedAt);
    // Commands whose own spec refuses an unknown or ended acting session earlier keep that code
    // (exit 2, nothing appended); every other append is refused at the store with UNKNOWN_SESSION.
    const attempts: [string[], string, string][] = [
      [['wu', 'checkpoint', 'WU-3', '--note', 'x'], 'session_000000000000000000000000', 'UNKNOWN_SESSION'],
      [['wu', 'checkpoint', 'WU-3', '--note', 'x'], ended, 'UNKNOWN_SESSION'],
      [['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"hi"}'], 'typo', 'UNKNOWN_SESSION'],
      [['mem', 'inbox'], ended, 'UNKNOWN_SESSION'],
      [['mem', 'signal', 'hello', '--to', planck], 'Planckk', 'UNKNOWN_ID'],
      [['task', 'create', '--label', 'x'], ended, 'SESSION_ENDED'],
    ];
    for (const [args, as, code] of attempts) {
      const run = await ws.run(args, { as });
      const error = errorEnvelopeOf(run);
      expect([args.join(' '), as, run.code, error.code]).toEqual([args.join(' '), as, 2, code]);
      if (code === 'UNKNOWN_SESSION') expect(error.message).toContain(`--session: ${as} names no live session`);
    }
    expect(ws.head()).toBe(beforeAttempts);
    // BATON_SESSION is checked the same way, and named as such.
    const viaEnv = await ws.run(['wu', 'block', 'WU-3', '--reason', 'x'], { env: { BATON_SESSION: 'typo' } });
    expect([viaEnv.code, errorEnvelopeOf(viaEnv).code]).toEqual([2, 'UNKNOWN_SESSION']);
    expect(errorEnvelopeOf(viaEnv).message).toContain('BATON_SESSION');
    expect(ws.head()).toBe(beforeAttempts);
    expect(
      ws
        .events()
        .filter((e) => e.type === 'wu.claimed')
        .map((e) => e.actor),
    ).toEqual([planck]);
  }, 120_000);

  it('a display name works wherever a session id does, writes and reads', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1');
    const planck = await ws.start(['--agent-identity', 'codex:impl']);
    const noether = await ws.start();
    await ws.ok(['wu', 'claim', 'WU-1'], { as: 'Planck' });
    await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'halfway'], { as: 'Planck' });
    const claimed = ws.events().filter((e) => e.type === 'wu.claimed' || e.type === 'wu.checkpointed');
    expect(claimed.map((e) => [e.actor, e.data['session_id']])).toEqual([
      [planck, planck],
      [planck, planck],
    ]);
    const sent = await ws.signal('review please', ['--to', 'Noether'], { as: 'Planck' });
    expect(sent.sender_identity).toBe('codex:impl');
    const inbox = await ws.inbox([], { as: 'Noether' });
    expect(inbox.signals.map((s) => s.signal_id)).toEqual([sent.signal_id]);
    const status = await ws.ok(['status'], { as: 'Noether' });
    expect(status.json).toMatchObject({ baton: { scope_session_id: noether } });
    const task = await ws.ok(['task', 'create', '--label', 'review'], { as: 'Noether' });
    expect(task.json).toMatchObject({ task: { sessionId: noether } });
    const heartbeat = await ws.ok(['session', 'heartbeat'], { as: 'Noether' });
    expect(heartbeat.json).toMatchObject({ session: { id: noether } });
    // As a positional session argument and --session-id, too.
    expect((await ws.ok(['session', 'heartbeat', 'Planck'])).json).toMatchObject({ session: { id: planck } });
    expect((await ws.ok(['session', 'Noether'])).json).toMatchObject({ session: { id: noether } });
    expect((await ws.ok(['resume', 'Noether'])).json).toMatchObject({ type: 'orchestration_resume' });
    const listed = (await ws.ok(['tasks', '--session-id', 'Noether'])).json as { tasks: { sessionId: string }[] };
    expect(listed.tasks.map((t) => t.sessionId)).toEqual([noether]);
    expect((await ws.ok(['session', 'end', 'Noether'])).json).toMatchObject({ session: { id: noether, status: 'succeeded' } });
  }, 120_000);
});
