import { afterAll, describe, expect, it } from 'vitest';
import { at, envelope, oneSession, OrchestrationSessionEnvelope, RosterEnvelope, T0_ISO, twoSessions, workspace } from '../helpers/coordination.js';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { CountingContext } from '../helpers/counting-store.js';
import { endSessionEnvelope, heartbeatSessionEnvelope } from '../../src/app/commands/sessions.js';
import { runProjection } from '../../src/store/projection-runner.js';
import { coordinationStateProjection } from '../../projections/coordination/roster.js';

afterAll(removeTempDirs);

describe('sessions and display names (coordination.md §15, 1–10, 47)', () => {
  it('1: a started session is listed active as Planck, one session.started on its stream', async () => {
    const { ws, s1: id } = await oneSession();
    const roster = await ws.okAs(RosterEnvelope, ['mem', 'roster']);
    expect(roster.sessions).toHaveLength(1);
    const s = roster.sessions[0]!;
    expect(s.session_id).toMatch(/^session_[A-Za-z0-9_-]+$/);
    expect(s.session_id).toBe(id);
    expect(s).toMatchObject({
      display_name: 'Planck',
      status: 'active',
      agent_identity: null,
      reader_identity: id,
      created_at: T0_ISO,
      last_heartbeat_at: T0_ISO,
    });
    const events = ws.events();
    expect(events.map((e) => [e.type, e.stream])).toEqual([['session.started', `session/${id}`]]);
  });

  it('1b: the human output ends with the export line; bad flags exit 2 naming the flag and append nothing', async () => {
    const ws = await workspace();
    const human = await ws.run(['--human', 'session', 'start']);
    expect(human.code).toBe(0);
    expect(human.stdout.trim().split('\n').at(-1)).toMatch(/^export BATON_SESSION=session_[0-9a-f]{24}$/);
    for (const [flags, field] of [
      [['--role', ' bad role'], '--role'],
      [['--agent-identity', 'session_abc'], '--agent-identity'],
      [['--client', 'vim'], '--client'],
      [['--wu', 'WU-9'], '--wu'],
    ] as const) {
      const r = await ws.run(['session', 'start', ...flags]);
      expect(r.code, flags.join(' ')).toBe(2);
      expect(errorEnvelopeOf(r).message).toContain(field);
    }
    expect(ws.head()).toBe(1);
  });

  it('2: ending S1 frees Planck for the next start', async () => {
    const { ws, s1, s2 } = await twoSessions();
    await ws.ok(['session', 'end', s1]);
    const s3 = await ws.start();
    const roster = await ws.okAs(RosterEnvelope, ['mem', 'roster']);
    const names = Object.fromEntries(roster.sessions.map((s) => [s.session_id, s.display_name]));
    expect(names).toEqual({ [s2]: 'Noether', [s3]: 'Planck' });
  });

  it('3: a fifth session over a four-name pool is Planck-2', async () => {
    const ws = await workspace();
    for (let i = 0; i < 4; i++) await ws.setUpSession();
    const r = await ws.okAs(OrchestrationSessionEnvelope, ['session', 'start']);
    expect(r.session.baton.display_name).toBe('Planck-2');
  });

  it('4 / X6: concurrent starts get distinct names, and each printed what the roster shows', async () => {
    const ws = await workspace();
    const starts = await Promise.all(Array.from({ length: 6 }, () => ws.okAs(OrchestrationSessionEnvelope, ['session', 'start'])));
    const printed = Object.fromEntries(starts.map((r) => [r.session.id, r.session.baton.display_name]));
    const roster = await ws.okAs(RosterEnvelope, ['mem', 'roster']);
    const shown = Object.fromEntries(roster.sessions.map((s) => [s.session_id, s.display_name]));
    expect(shown).toEqual(printed);
    expect(new Set(Object.values(shown)).size).toBe(6);
  });

  it('5: agent identity from the flag, from BATON_AGENT_IDENTITY, or null', async () => {
    const ws = await workspace();
    const a = await ws.start(['--agent-identity', 'codex:implementer:host42']);
    const b = await ws.start([], { env: { BATON_AGENT_IDENTITY: 'reviewer:docs:a' } });
    const c = await ws.start();
    const roster = await ws.okAs(RosterEnvelope, ['mem', 'roster']);
    const by = (id: string) => roster.sessions.find((s) => s.session_id === id);
    expect(by(a)).toMatchObject({ agent_identity: 'codex:implementer:host42', reader_identity: 'codex:implementer:host42' });
    expect(by(b)).toMatchObject({ agent_identity: 'reviewer:docs:a', reader_identity: 'reviewer:docs:a' });
    expect(by(c)).toMatchObject({ agent_identity: null, reader_identity: c });
  });

  it('6: abandoned strictly after the TTL, listed only with --include-stale, nothing appended', async () => {
    const { ws, s1 } = await oneSession();
    const atTtl = await ws.okAs(RosterEnvelope, ['mem', 'roster'], { now: at(4 * 3600) });
    expect(atTtl.sessions).toMatchObject([{ session_id: s1, status: 'active' }]);
    const after = await ws.okAs(RosterEnvelope, ['mem', 'roster'], { now: at(4 * 3600 + 1) });
    expect(after.sessions).toEqual([]);
    const stale = await ws.okAs(RosterEnvelope, ['mem', 'roster', '--include-stale'], { now: at(4 * 3600 + 1) });
    expect(stale.sessions).toMatchObject([{ session_id: s1, status: 'abandoned' }]);
    expect(ws.head()).toBe(1);
  });

  it('7: a heartbeat revives an abandoned session, which keeps its name', async () => {
    const { ws, s1 } = await oneSession();
    await ws.ok(['session', 'heartbeat', s1], { now: at(5 * 3600) });
    const r = await ws.okAs(RosterEnvelope, ['mem', 'roster'], { now: at(5 * 3600) });
    expect(r.sessions).toMatchObject([{ session_id: s1, status: 'active', last_heartbeat_at: at(5 * 3600), display_name: 'Planck' }]);
  });

  it('7b: heartbeat defaults to the acting session', async () => {
    const { ws, s1 } = await oneSession();
    await ws.ok(['session', 'heartbeat'], { as: s1, now: at(60) });
    const r = await ws.okAs(RosterEnvelope, ['mem', 'roster'], { now: at(60) });
    expect(r.sessions.map((s) => [s.session_id, s.last_heartbeat_at])).toEqual([[s1, at(60)]]);
  });

  it('8: any event a session records keeps it alive', async () => {
    const { ws, s1 } = await oneSession();
    await ws.signal('status update', [], { as: s1, now: at(3 * 3600) });
    const alive = await ws.okAs(RosterEnvelope, ['mem', 'roster'], { now: at(4 * 3600 + 1) });
    expect(alive.sessions).toMatchObject([{ session_id: s1, status: 'active', last_heartbeat_at: at(3 * 3600) }]);
    const stale = await ws.okAs(RosterEnvelope, ['mem', 'roster', '--include-stale'], { now: at(7 * 3600 + 1) });
    expect(stale.sessions).toMatchObject([{ session_id: s1, status: 'abandoned' }]);
  });

  it('9: an ended session leaves the roster and frees its name; it ends once', async () => {
    const { ws, s1 } = await oneSession();
    await ws.ok(['session', 'end', s1, '--status', 'failed']);
    const head = ws.head();
    const stale = await ws.okAs(RosterEnvelope, ['mem', 'roster', '--include-stale']);
    expect(stale.sessions).toEqual([]);
    const hb = await ws.run(['session', 'heartbeat', s1]);
    expect(hb.code).toBe(2);
    expect(errorEnvelopeOf(hb).code).toBe('SESSION_ENDED');
    const other = await ws.run(['session', 'end', s1, '--status', 'succeeded']);
    expect(other.code).toBe(2);
    expect(errorEnvelopeOf(other).code).toBe('SESSION_ENDED');
    const same = await ws.run(['session', 'end', s1, '--status', 'failed']);
    expect(same.code).toBe(0);
    expect(envelope(OrchestrationSessionEnvelope, same).session.status).toBe('failed');
    expect(ws.head()).toBe(head);
    const next = await ws.okAs(OrchestrationSessionEnvelope, ['session', 'start']);
    expect(next.session.baton.display_name).toBe('Planck');
  });

  it('9b: unknown or malformed session ids exit 2', async () => {
    const ws = await workspace();
    const unknown = await ws.run(['session', 'end', 'session_000000000000000000000000']);
    expect([unknown.code, errorEnvelopeOf(unknown).code]).toEqual([2, 'UNKNOWN_ID']);
    const bad = await ws.run(['session', 'end', 'sess-1']);
    expect(bad.code).toBe(2);
    expect(errorEnvelopeOf(bad).message).toContain("Expected session_<id>, got 'sess-1'");
    const status = await ws.run(['session', 'end', 'session_000000000000000000000000', '--status', 'done']);
    expect(status.code).toBe(2);
    expect(ws.head()).toBe(0);
  });

  it('10: the roster shows the WU of the latest claim and its lane', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1');
    const s1 = await ws.setUpSession();
    await ws.claim('WU-1', s1);
    const r = await ws.okAs(RosterEnvelope, ['mem', 'roster']);
    expect(r.sessions).toMatchObject([{ session_id: s1, wu_id: 'WU-1', lane: 'L1' }]);
  });

  it('10b: session start --wu needs a known WU and takes its lane', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1');
    const r = await ws.okAs(OrchestrationSessionEnvelope, ['session', 'start', '--wu', 'WU-1', '--role', 'implementer']);
    expect(r.session.baton).toMatchObject({ wu_id: 'WU-1', lane: 'L1', role: 'implementer' });
  });

  it('47: replay --view roster before and after the end', async () => {
    const { ws, s1 } = await oneSession();
    await ws.ok(['session', 'end', s1], { now: at(3600) });
    const n = ws.head();
    const before = await ws.okAs(RosterEnvelope, ['replay', '--view', 'roster', '--to', String(n - 1)], { now: at(3600) });
    expect(before.sessions).toMatchObject([{ session_id: s1, status: 'active' }]);
    const after = await ws.okAs(RosterEnvelope, ['replay', '--view', 'roster', '--to', String(n)], { now: at(3600) });
    expect(after.sessions).toEqual([]);
  });

  it('48: heartbeat and end name a session by its display name in one read; the fold counts each session stream as the store does', async () => {
    const { ws, s1, s2 } = await twoSessions();
    const app = (session?: string) =>
      new CountingContext({
        dir: ws.dir,
        session,
        env: { BATON_NOW: at(60) },
        output: { mode: 'json', warn: () => undefined },
        names: { dir: '--dir', session: '--session' },
      });
    const beat = app('Planck');
    try {
      const r = await heartbeatSessionEnvelope(beat, {});
      expect([r.session.id, beat.counting?.reads]).toEqual([s1, 1]);
    } finally {
      await beat.close();
    }
    expect(ws.events().at(-1)).toMatchObject({ type: 'session.heartbeat', actor: s1, stream: `session/${s1}` });
    const end = app(s2);
    try {
      const r = await endSessionEnvelope(end, { session_id: 'Planck', status: 'succeeded' });
      expect([r.envelope.session.id, r.appended, end.counting?.reads]).toEqual([s1, true, 1]);
    } finally {
      await end.close();
    }
    // A name no live session holds is not a session id: exit 2 naming the argument, nothing written.
    const head = ws.head();
    const unknown = await ws.run(['session', 'end', 'Planck']);
    expect([unknown.code, errorEnvelopeOf(unknown).code, errorEnvelopeOf(unknown).message]).toEqual([
      2,
      'INVALID_INPUT',
      "id: Expected session_<id>, got 'Planck'",
    ]);
    expect(ws.head()).toBe(head);

    const reader = app();
    try {
      const store = await reader.store();
      const { state } = await runProjection(store, coordinationStateProjection, { catalog: await reader.catalog(), now: at(60) });
      for (const id of [s1, s2]) expect(state.session_streams.get(id)).toBe(await store.streamVersion(`session/${id}`));
    } finally {
      await reader.close();
    }
  });
});
