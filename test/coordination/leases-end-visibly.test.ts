import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BATON_BIN, childEnv, runBaton } from '../helpers/cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { at, HOUR, T0, WuWorkspace } from '../work-units/helpers.js';

afterAll(removeTempDirs);

/**
 * Leases that end visibly, through the built binary: a holder idle past its TTL is recorded lapsed
 * (`session.lapsed`, naming what it held) by the next command that notices, once; `baton sessions`
 * shows it; `baton mcp` ends the session it started when its client goes; Claude Code's SessionEnd
 * ends its session.
 */
const NO_IDENTITY = { BATON_AGENT_IDENTITY: undefined };
const TEN_MINUTES = 600;

// Sessions live ten minutes without a sign of life; A claims WU-1 at T0, B holds nothing.
const setup = WuWorkspace.shared(
  async (ws) => {
    await ws.wu(1, 'L1');
    await ws.wu(2, 'L2');
    const a = await ws.startSession({ env: NO_IDENTITY });
    const b = await ws.startSession({ env: NO_IDENTITY });
    await ws.ok(['wu', 'claim', 'WU-1'], { session: a, env: NO_IDENTITY });
    return { a, b };
  },
  { config: 'session_ttl: 10m\n' },
);

const lapses = (ws: WuWorkspace) => ws.events().filter((e) => e.type === 'session.lapsed');

interface ListedSession {
  id: string;
  status: string;
  baton: { lapse?: { held_wus: string[]; last_seen: string; lapsed_at: string; ttl_seconds: number } };
}

async function sessions(ws: WuWorkspace, now: string): Promise<ListedSession[]> {
  return ((await ws.ok(['sessions'], { now, env: NO_IDENTITY })).last as { sessions: ListedSession[] }).sessions;
}

describe('a lapsed holder is recorded, once', () => {
  it('the next command records exactly one session.lapsed naming the WU; again, none; baton sessions shows it lapsed with the WU', async () => {
    const { ws, a, b } = await setup();
    const later = at(HOUR);
    await ws.status({ session: b, now: later, env: NO_IDENTITY });
    const [lapse, ...more] = lapses(ws);
    expect(more).toEqual([]);
    expect(lapse).toMatchObject({ stream: `session/${a}`, actor: b, at: new Date(later).toISOString() });
    expect(lapse!.data).toEqual({
      session_id: a,
      last_seen: new Date(T0).toISOString(),
      ttl_seconds: TEN_MINUTES,
      lapsed_at: new Date(at(TEN_MINUTES)).toISOString(),
      held_wus: ['WU-1'],
    });
    const head = ws.headSeq();
    await ws.status({ session: b, now: at(2 * HOUR), env: NO_IDENTITY });
    await ws.status({ now: at(2 * HOUR), env: NO_IDENTITY });
    const listed = await sessions(ws, at(2 * HOUR));
    expect(ws.headSeq()).toBe(head);
    const shown = listed.find((s) => s.id === a)!;
    expect(shown.status).toBe('abandoned');
    expect(shown.baton.lapse).toMatchObject({ held_wus: ['WU-1'], last_seen: lapse!.data['last_seen'], lapsed_at: lapse!.data['lapsed_at'] });
    expect(listed.find((s) => s.id === b)!.baton.lapse).toBeUndefined();
    const human = await ws.ok(['--human', 'sessions'], { now: at(2 * HOUR), env: NO_IDENTITY });
    expect(human.stdout).toMatch(new RegExp(`${a}\\s+\\S+\\s+lapsed \\(held WU-1\\)`));
    // The dashboard's sessions view is this projection: the lapse is there, and before its seq it is not.
    const replay = async (to: number) =>
      ((await ws.ok(['replay', '--view', 'sessions', '--to', String(to)], { now: at(2 * HOUR), env: NO_IDENTITY })).last as { sessions: ListedSession[] })
        .sessions;
    expect((await replay(lapse!.seq)).find((s) => s.id === a)!.baton.lapse?.held_wus).toEqual(['WU-1']);
    expect((await replay(lapse!.seq - 1)).find((s) => s.id === a)!.baton.lapse).toBeUndefined();
  });

  it('wu claim records the lapse it notices in its own batch, before the claim; a takeover after it adds none', async () => {
    const { ws, a, b } = await setup();
    const later = at(HOUR);
    const claimed = await ws.ok(['wu', 'claim', 'WU-2'], { session: b, now: later, env: NO_IDENTITY });
    expect((claimed.last as { appended: { type: string }[] }).appended.map((e) => e.type)).toEqual(['session.lapsed', 'wu.claimed']);
    expect(lapses(ws).map((e) => e.data)).toEqual([expect.objectContaining({ session_id: a, held_wus: ['WU-1'] })]);
    await ws.ok(['wu', 'claim', 'WU-1', '--takeover', '--reason', 'A went silent'], { session: b, now: later, env: NO_IDENTITY });
    expect(lapses(ws)).toHaveLength(1);
    expect(ws.events().at(-1)).toMatchObject({ type: 'wu.claimed', data: { wu_id: 'WU-1', session_id: b, takeover_from: a } });
  });

  it('baton sessions records the lapse on its own; a refused claim records nothing', async () => {
    const { ws, a, b } = await setup();
    const later = at(HOUR);
    const head = ws.headSeq();
    const refused = await ws.fail(['wu', 'claim', 'WU-1'], 4, { session: b, now: later, env: NO_IDENTITY });
    expect(refused.message).toContain('--takeover');
    expect(ws.headSeq()).toBe(head);
    const listed = await sessions(ws, later);
    expect(listed.find((s) => s.id === a)!.baton.lapse?.held_wus).toEqual(['WU-1']);
    expect(lapses(ws)).toHaveLength(1);
    expect(lapses(ws)[0]!.actor).toBe('system');
    await sessions(ws, later);
    expect(lapses(ws)).toHaveLength(1);
  });

  it('a holder that comes back is no longer shown lapsed; when it lapses again, that is a new lapse', async () => {
    const { ws, a } = await setup();
    await sessions(ws, at(HOUR));
    await ws.ok(['session', 'heartbeat'], { session: a, now: at(HOUR), env: NO_IDENTITY });
    expect((await sessions(ws, at(HOUR))).find((s) => s.id === a)!.baton.lapse).toBeUndefined();
    expect(lapses(ws)).toHaveLength(1);
    await sessions(ws, at(2 * HOUR));
    expect(lapses(ws).map((e) => e.data['last_seen'])).toEqual([new Date(T0).toISOString(), new Date(at(HOUR)).toISOString()]);
  });
});

/** `baton --dir DIR [--session S] mcp` through the SDK's own client, as an MCP host runs it. */
async function connect(dir: string, session?: string): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BATON_BIN, '--dir', dir, ...(session !== undefined ? ['--session', session] : []), 'mcp'],
    env: childEnv({ BATON_NOW: T0 }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'baton-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** The session the server started on its first call (the status tool names the acting session). */
function startedBy(ws: WuWorkspace, before: number): string {
  const started = ws.events().filter((e) => e.seq > before && e.type === 'session.started');
  expect(started).toHaveLength(1);
  return String(started[0]!.data['session_id']);
}

const endedOf = (ws: WuWorkspace, session: string) => ws.events().filter((e) => e.type === 'session.ended' && e.data['session_id'] === session);

describe('baton mcp ends the session it started when its client goes', () => {
  it('stdin closed: session.ended (succeeded), recorded as the session itself', async () => {
    const { ws } = await setup();
    const head = ws.headSeq();
    const { client } = await connect(ws.dir);
    expect((await client.callTool({ name: 'status', arguments: {} })).isError).not.toBe(true);
    const session = startedBy(ws, head);
    expect(endedOf(ws, session)).toEqual([]);
    await client.close();
    expect(endedOf(ws, session)).toEqual([expect.objectContaining({ actor: session, data: { session_id: session, status: 'succeeded' } })]);
  });

  it('SIGTERM: the same', async () => {
    const { ws } = await setup();
    const head = ws.headSeq();
    const { client, transport } = await connect(ws.dir);
    await client.callTool({ name: 'status', arguments: {} });
    const session = startedBy(ws, head);
    const exited = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    process.kill(transport.pid!, 'SIGTERM');
    await exited;
    await client.close();
    expect(endedOf(ws, session)).toHaveLength(1);
    expect(endedOf(ws, session)[0]!.data['status']).toBe('succeeded');
  });

  it('a session it was given (--session) stays the caller’s: not ended; a server that started none ends none', async () => {
    const { ws, a } = await setup();
    const given = await connect(ws.dir, a);
    await given.client.callTool({ name: 'status', arguments: {} });
    await given.client.close();
    const idle = await connect(ws.dir);
    const head = ws.headSeq();
    await idle.client.close();
    expect(endedOf(ws, a)).toEqual([]);
    expect(ws.headSeq()).toBe(head);
  });
});

describe("Claude Code's SessionEnd ends the session", () => {
  it('the hook payload on stdin ends the mapped session (succeeded); its claim is no longer held', async () => {
    const { ws, b } = await setup();
    const payload = (event: string, extra: Record<string, unknown>) =>
      JSON.stringify({ session_id: 'claude-end', transcript_path: '/tmp/claude-end.jsonl', cwd: ws.dir, hook_event_name: event, ...extra });
    const hook = (event: string, extra: Record<string, unknown>) =>
      runBaton(['hook', 'claude-code', event], {
        input: payload(event, extra),
        cwd: ws.dir,
        env: { BATON_NOW: T0, CLAUDE_PROJECT_DIR: ws.dir, BATON_HOOK_DEADLINE_MS: '30000' },
      });
    const head = ws.headSeq();
    expect((await hook('SessionStart', { source: 'startup' })).code).toBe(0);
    const session = startedBy(ws, head);
    await ws.ok(['wu', 'claim', 'WU-2'], { session, env: NO_IDENTITY });
    const end = await hook('SessionEnd', { reason: 'logout' });
    expect([end.code, end.stdout]).toEqual([0, '']);
    expect(endedOf(ws, session)).toEqual([expect.objectContaining({ actor: session, data: { session_id: session, status: 'succeeded' } })]);
    // Ended, so its claim may be taken over at once (with a reason), no lapse needed.
    await ws.ok(['wu', 'claim', 'WU-2', '--takeover', '--reason', 'its session ended'], { session: b, env: NO_IDENTITY });
    expect(ws.events().at(-1)!.data).toMatchObject({ session_id: b, takeover_from: session });
    expect(lapses(ws)).toEqual([]);
  });
});
