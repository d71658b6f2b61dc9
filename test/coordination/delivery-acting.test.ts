import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BatonAppContext } from '../../src/app/app-context.js';
import { readConvergence } from '../../src/app/commands/coordination-views.js';
import { watchSession } from '../../src/app/commands/delivery.js';
import { readInboxEnvelope } from '../../src/app/commands/inbox.js';
import type { AppContext } from '../../src/app/context.js';
import { coordinationEnv } from '../../src/app/coordination-env.js';
import { errorEnvelope, type ErrorEnvelope } from '../../src/app/error-envelope.js';
import { drainHook, watchSignals } from '../../src/coordination/delivery.js';
import { checkOverrideFlags } from '../../src/coordination/prep.js';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { T0, workspace } from '../helpers/coordination.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

function appIn(dir: string, session?: string): BatonAppContext {
  return new BatonAppContext({
    dir,
    session,
    env: { BATON_NOW: T0 },
    output: { mode: 'json', warn: () => undefined },
    names: { dir: '--dir', session: '--session' },
  });
}

async function refused(dir: string, session: string | undefined, body: (app: AppContext) => Promise<unknown>): Promise<ErrorEnvelope> {
  const app = appIn(dir, session);
  try {
    await body(app);
  } catch (error) {
    return errorEnvelope(error, app.now, (field) => field);
  } finally {
    await app.close();
  }
  throw new Error('the command was not refused');
}

/** Every byte of the log's segments: a refused command leaves them untouched. */
function logBytes(dir: string): string {
  const log = join(dir, '.baton', 'log');
  return readdirSync(log)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => readFileSync(join(log, name), 'utf8'))
    .join('');
}

/**
 * A watch or a drain records its receipts as whoever runs it. The command line's watcher is never
 * the session it delivers to (it records as `system`), and a watch of an ended session is refused;
 * a caller acting as a session (a library caller's env) is checked like every other append: an
 * ended session is refused UNKNOWN_SESSION before anything is shown, and nothing is appended.
 */
describe('mem watch and hooks drain acting as a session', () => {
  it('the command line: a watch as an ended session is refused and writes nothing', async () => {
    const ws = await workspace();
    const live = await ws.start();
    const ended = await ws.start();
    await ws.signal('for the ended one', ['--to', ended], { as: live });
    await ws.ok(['session', 'end', ended]);
    const before = logBytes(ws.dir);
    for (const args of [
      ['mem', 'watch', '--once'],
      ['mem', 'watch', '--session', ended, '--once'],
    ]) {
      const run = await ws.run(args, { as: ended });
      expect([run.code, errorEnvelopeOf(run).code], args.join(' ')).toEqual([2, 'UNKNOWN_ID']);
      expect(run.lines.filter((line) => (line as { type?: string }).type === 'signal_received')).toEqual([]);
      expect(logBytes(ws.dir)).toBe(before);
    }
  }, 120_000);

  it('a library caller acting as an ended session: refused UNKNOWN_SESSION before anything is shown, nothing appended', async () => {
    const ws = await workspace();
    const target = await ws.start();
    const actor = await ws.start();
    const other = await ws.start();
    await ws.signal('look', ['--to', target, '--interrupt-class', 'interrupt'], { as: other });
    await ws.ok(['session', 'end', actor]);
    const before = logBytes(ws.dir);
    const app = appIn(ws.dir);
    try {
      const env = { ...(await coordinationEnv(app, { actAsSession: false })), session: actor, sessionName: 'session' };
      const shown: unknown[] = [];
      const watch = watchSignals(env, target, { once: true, clock: () => app.now, onDelivery: (d) => shown.push(d) });
      await expect(watch).rejects.toMatchObject({ code: 'UNKNOWN_SESSION' });
      await expect(drainHook(env, target, (d) => shown.push(d))).rejects.toMatchObject({ code: 'UNKNOWN_SESSION' });
      expect(shown).toEqual([]);
      expect(logBytes(ws.dir)).toBe(before);

      // Acting as a live session, the same watch delivers and records its receipt as that session.
      const handle = await watchSignals({ ...env, session: other }, target, { once: true, clock: () => app.now, onDelivery: (d) => shown.push(d) });
      await handle.done;
      expect(shown).toHaveLength(1);
      const receipts = ws.events().filter((e) => e.type === 'receipt.recorded');
      expect(receipts.map((e) => [e.actor, e.data['via']])).toEqual([[other, 'watch']]);
    } finally {
      await app.close();
    }
  }, 120_000);
});

describe('coordination refusals name the domain field', () => {
  it('inbox, converged, watch and the prep override: the field, never a flag; the CLI keeps its flags', async () => {
    const ws = await workspace();
    const reader = await ws.start();
    const head = ws.head();

    const intent = await refused(ws.dir, reader, (app) => readInboxEnvelope(app, { intent: ['MAYBE' as 'INFO'], mark: false }));
    expect(intent).toMatchObject({ code: 'INVALID_INPUT', message: 'intent.0: must be one of INFO, PROPOSE, COUNTER, AGREE, REJECT' });
    expect(await refused(ws.dir, reader, (app) => readInboxEnvelope(app, { for: 'Nobody', mark: false }))).toMatchObject({
      code: 'UNKNOWN_RECIPIENT',
      message: 'for: "Nobody" is no live session id, known agent identity or live display name',
      details: { field: 'for', token: 'Nobody' },
    });
    expect(await refused(ws.dir, 'session_000000000000000000000000', (app) => readInboxEnvelope(app, { mark: false }))).toMatchObject({
      code: 'UNKNOWN_ID',
      details: { field: 'session' },
    });
    expect((await refused(ws.dir, reader, (app) => readConvergence(app, { thread: 'not a thread' }))).message).toMatch(/^thread: /);
    expect(await refused(ws.dir, undefined, (app) => watchSession(app, { session: undefined, once: true, show: () => undefined }))).toMatchObject({
      message: 'session: names the session to deliver to (session id, agent identity or display name); it is required',
      details: { field: 'session' },
    });
    expect(await refused(ws.dir, undefined, (app) => watchSession(app, { session: 'Nobody', once: true, show: () => undefined }))).toMatchObject({
      code: 'UNKNOWN_ID',
      details: { field: 'session', session: 'Nobody' },
    });
    expect(await refused(ws.dir, undefined, async () => checkOverrideFlags({ allow: true, reason: undefined }))).toMatchObject({
      message: 'reason: allow_unread_signals and reason go together (give both or neither)',
      details: { field: 'reason' },
    });
    expect(ws.head()).toBe(head);

    // The command line names the same inputs by its flags.
    const cliFor = errorEnvelopeOf(await ws.run(['mem', 'inbox', '--for', 'Nobody', '--no-mark'], { as: reader }));
    expect(cliFor).toMatchObject({ code: 'UNKNOWN_RECIPIENT', message: '--for: "Nobody" is no live session id, known agent identity or live display name' });
    expect(cliFor.details).toEqual({ field: '--for', token: 'Nobody' });
    const cliWatch = errorEnvelopeOf(await ws.run(['mem', 'watch', '--session', 'Nobody', '--once']));
    expect(cliWatch.details).toEqual({ field: '--session', session: 'Nobody' });
    expect(ws.head()).toBe(head);
  }, 120_000);
});
