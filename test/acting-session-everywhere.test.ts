import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorEnvelopeOf, type CliResult } from './helpers/cli.js';
import { workspace } from './helpers/coordination.js';
import { removeTempDirs } from './helpers/workspace.js';

afterAll(removeTempDirs);

/** Every byte of the log's segments, in order: a refused command must leave them untouched. */
function logBytes(dir: string): string {
  const log = join(dir, '.baton', 'log');
  return readdirSync(log)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => readFileSync(join(log, name), 'utf8'))
    .join('');
}

/** The refusal's code, or what the command printed when it was not refused. */
function codeOf(run: CliResult): string {
  try {
    return errorEnvelopeOf(run).code;
  } catch {
    return `not refused: ${run.stdout}${run.stderr}`;
  }
}

/**
 * Identity on writes, on every path that appends as the acting session: a session that ended
 * cannot record anything as itself, whichever command it runs (exit 2, nothing appended). Commands
 * whose own spec refuses an ended session earlier keep that code.
 */
describe('an ended session appends nothing, on any command', () => {
  it('refuses every state-changing command acting as an ended session, the log byte-identical', async () => {
    const ws = await workspace();
    await ws.withWus('WU-1', 'WU-2');
    const live = await ws.start();
    const ended = await ws.start();
    await ws.ok(['wu', 'claim', 'WU-2'], { as: ended });
    // An unread signal for the session that then ends: reading it would append a receipt as that session.
    await ws.signal('for the ended one', ['--to', ended, '--wu', 'WU-2'], { as: live });
    // A launchable WU of its own initiative and lane, so `orchestrate run` has something to record.
    await ws.ok([
      'log',
      'append',
      '--type',
      'initiative.created',
      '--stream',
      'initiative/INIT-9',
      '--data',
      JSON.stringify({ initiative: 'INIT-9', title: 'Nine', slug: null, lanes: ['L9'] }),
    ]);
    await ws.ok([
      'log',
      'append',
      '--type',
      'wu.defined',
      '--stream',
      'wu/WU-9',
      '--data',
      JSON.stringify({ wu_id: 'WU-9', initiative: 'INIT-9', lane: 'L9', title: 'Nine' }),
    ]);
    await ws.ok(['session', 'end', ended]);
    mkdirSync(join(ws.dir, 'wus'));
    writeFileSync(join(ws.dir, 'wus', 'WU-7.yaml'), 'id: WU-7\ntitle: Seven\ninitiative: INIT-1\nlane: L1\nstatus: ready\n');
    // A LumenFlow repository of one WU, for `import lumenflow`.
    mkdirSync(join(ws.dir, 'lf', 'docs', 'operations', 'tasks', 'wu'), { recursive: true });
    writeFileSync(join(ws.dir, 'lf', 'workspace.yaml'), 'software_delivery: {}\n');
    writeFileSync(
      join(ws.dir, 'lf', 'docs', 'operations', 'tasks', 'wu', 'WU-8.yaml'),
      'id: WU-8\ntitle: Eight\nlane: L1\nstatus: ready\ninitiative: INIT-1\n',
    );
    const before = logBytes(ws.dir);
    const commands: [string[], string][] = [
      [['wu', 'create', 'WU-5', '--initiative', 'INIT-1', '--lane', 'L1', '--title', 'Five'], 'UNKNOWN_SESSION'],
      // WU-2, of the same lane, is claimed: the claim is forced past the lane's WIP limit, so only the session refuses it.
      [['wu', 'claim', 'WU-1', '--force', '--reason', 'scenario: WU-2 of lane L1 is claimed'], 'UNKNOWN_SESSION'],
      [['wu', 'checkpoint', 'WU-2', '--note', 'x'], 'UNKNOWN_SESSION'],
      [['wu', 'import', join(ws.dir, 'wus')], 'UNKNOWN_SESSION'],
      [['import', 'lumenflow', join(ws.dir, 'lf')], 'UNKNOWN_SESSION'],
      [['wu', 'prep', 'WU-2', '--allow-unread-signals', '--reason', 'paired review'], 'UNKNOWN_SESSION'],
      [['initiative', 'create', 'INIT-2', '--title', 'Two'], 'UNKNOWN_SESSION'],
      [['orchestrate', 'run', 'INIT-9'], 'UNKNOWN_SESSION'],
      [['mem', 'signal', 'hello', '--to', live], 'SESSION_ENDED'],
      [['mem', 'inbox'], 'UNKNOWN_SESSION'],
      [['task', 'create', '--label', 'x'], 'SESSION_ENDED'],
      [['session', 'heartbeat'], 'SESSION_ENDED'],
      [['flow', 'init', 'Ship', 'it'], 'UNKNOWN_SESSION'],
    ];
    const answers = [];
    for (const [args] of commands) {
      const run = await ws.run(args, { as: ended });
      answers.push([args.slice(0, 2).join(' '), run.code, codeOf(run)]);
      expect(logBytes(ws.dir), args.join(' ')).toBe(before);
    }
    expect(answers).toEqual(commands.map(([args, code]) => [args.slice(0, 2).join(' '), 2, code]));
  }, 240_000);

  it('refuses a flow update acting as an ended session, the log byte-identical', async () => {
    const ws = await workspace();
    const ended = await ws.start();
    await ws.ok(['flow', 'init', 'Ship', 'it']);
    await ws.ok(['session', 'end', ended]);
    const before = logBytes(ws.dir);
    const run = await ws.run(['flow', 'update', '--gate-result', 'passed'], { as: ended });
    expect([run.code, codeOf(run)]).toEqual([2, 'UNKNOWN_SESSION']);
    expect(logBytes(ws.dir)).toBe(before);
  }, 120_000);
});
