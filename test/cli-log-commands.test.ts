import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredEventSchema, type StoredEvent } from '../events/envelope.js';
import { AppendedEnvelope, LogExportedEnvelope, LogImportedEnvelope, LogVerificationEnvelope } from '../src/app/envelopes/foundation.js';
import { batonIn, errorEnvelopeOf, jsonLines, runBaton, startBaton } from './helpers/cli.js';
import { hashTree, logDir, makeTempDir, removeTempDirs, segmentBytes, sharedSetup, storedLines } from './helpers/workspace.js';

/** The foundation's log commands, through the built binary. */
afterAll(() => removeTempDirs());

const noteArgs = (stream: string, text: string, ...rest: string[]): string[] => [
  'log',
  'append',
  '--type',
  'note.recorded',
  '--stream',
  stream,
  '--data',
  JSON.stringify({ text }),
  ...rest,
];
const eventLine = (stream: string, text: string): string => JSON.stringify({ type: 'note.recorded', stream, data: { text } });

/** `baton init` run once per file; every fresh workspace is a copy of that one. */
const initialised = sharedSetup('baton-init-', async (dir) => {
  expect((await batonIn(dir, ['init'])).code).toBe(0);
});

async function freshWorkspace(prefix: string): Promise<string> {
  return (await initialised(makeTempDir(prefix))).dir;
}

async function ok(workspace: string, args: string[], options: Parameters<typeof batonIn>[2] = {}): Promise<string> {
  const result = await batonIn(workspace, args, options);
  expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
  return result.stdout;
}

function shownEvents(stdout: string): StoredEvent[] {
  return jsonLines(stdout).map((value) => StoredEventSchema.parse(value));
}

async function waitFor(what: string, condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('baton log append', () => {
  it('prints an `appended` envelope (keys v, type, generated_at first; valid against its schema) for the stored event', async () => {
    const workspace = await freshWorkspace('baton-append-');
    const stdout = await ok(workspace, noteArgs('note/a', 'hello'));
    const lines = jsonLines(stdout);
    expect(lines).toHaveLength(1);
    expect(Object.keys(lines[0] as object).slice(0, 3)).toEqual(['v', 'type', 'generated_at']);
    const envelope = AppendedEnvelope.parse(lines[0]);
    const [stored] = shownEvents(await ok(workspace, ['log', 'show']));
    expect(envelope).toMatchObject({ v: 1, type: 'appended', deduplicated: false });
    expect(envelope.events).toEqual([{ seq: 1, id: stored!.id, type: 'note.recorded', stream: 'note/a', hash: stored!.hash }]);
    expect(stored!.data).toEqual({ text: 'hello' });
  });

  it("BATON_NOW fixes both the event's `at` and the envelope's `generated_at`", async () => {
    const workspace = await freshWorkspace('baton-now-');
    const stdout = await ok(workspace, noteArgs('note/a', 'clocked'), { env: { BATON_NOW: '2026-01-31T12:00:00Z' } });
    expect(AppendedEnvelope.parse(jsonLines(stdout)[0]).generated_at).toBe('2026-01-31T12:00:00.000Z');
    expect(shownEvents(await ok(workspace, ['log', 'show']))[0]!.at).toBe('2026-01-31T12:00:00.000Z');
  });

  it('the actor is --session, else BATON_SESSION, else BATON_AGENT_IDENTITY, else `system`', async () => {
    const workspace = await freshWorkspace('baton-actor-');
    // A session acting on a write must be live: the two are started first.
    const started = async () => (jsonLines(await ok(workspace, ['session', 'start', '--json'])).at(-1) as { session: { id: string } }).session.id;
    const flag = await started();
    const fromEnv = await started();
    const cases: { args: string[]; env: Record<string, string>; actor: string }[] = [
      { args: ['--session', flag], env: { BATON_SESSION: fromEnv, BATON_AGENT_IDENTITY: 'agent-x' }, actor: flag },
      { args: [], env: { BATON_SESSION: fromEnv, BATON_AGENT_IDENTITY: 'agent-x' }, actor: fromEnv },
      { args: [], env: { BATON_AGENT_IDENTITY: 'agent-x' }, actor: 'agent-x' },
      { args: [], env: {}, actor: 'system' },
    ];
    for (const [i, c] of cases.entries()) await ok(workspace, [...c.args, ...noteArgs('note/actors', `case ${i}`)], { env: c.env });
    expect(shownEvents(await ok(workspace, ['log', 'show', '--stream', 'note/actors'])).map((e) => e.actor)).toEqual(cases.map((c) => c.actor));
  });

  it('a retry with the same idempotency key and content is deduplicated (same seq, id, hash; nothing written); other content with that key exits 4', async () => {
    const workspace = await freshWorkspace('baton-idem-');
    const first = AppendedEnvelope.parse(jsonLines(await ok(workspace, noteArgs('note/a', 'once', '--idempotency-key', 'op-1')))[0]);
    await ok(workspace, noteArgs('note/a', 'in between'));
    const before = segmentBytes(workspace);
    const retry = AppendedEnvelope.parse(jsonLines(await ok(workspace, noteArgs('note/a', 'once', '--idempotency-key', 'op-1')))[0]);
    expect(first.deduplicated).toBe(false);
    expect(retry.deduplicated).toBe(true);
    expect(retry.events).toEqual(first.events);
    expect(segmentBytes(workspace).equals(before)).toBe(true);

    const clash = await batonIn(workspace, noteArgs('note/a', 'different', '--idempotency-key', 'op-1'));
    expect(clash.code).toBe(4);
    expect(errorEnvelopeOf(clash)).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    expect(errorEnvelopeOf(clash).message).toContain('op-1');
    expect(segmentBytes(workspace).equals(before)).toBe(true);
  });

  it('--events FILE --batch appends the lines as one batch: contiguous seqs, batch_end on every line, one envelope', async () => {
    const workspace = await freshWorkspace('baton-batch-');
    const file = join(workspace, 'batch.jsonl');
    writeFileSync(file, ['one', 'two', 'three'].map((t) => eventLine('note/b', t)).join('\n') + '\n');
    const envelopes = jsonLines(await ok(workspace, ['log', 'append', '--events', file, '--batch', '--each']));
    expect(envelopes).toHaveLength(1);
    expect(AppendedEnvelope.parse(envelopes[0]).events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(shownEvents(await ok(workspace, ['log', 'show'])).map((e) => e.batch_end)).toEqual([3, 3, 3]);
  });
});

describe('baton log show and tail', () => {
  let workspace = '';
  let lines: string[] = [];
  let events: StoredEvent[] = [];

  beforeAll(async () => {
    workspace = await freshWorkspace('baton-show-');
    const input = Array.from({ length: 12 }, (_, i) => eventLine(i % 3 === 0 ? 'note/b' : 'note/a', `event ${i + 1} — ✓`)).join('\n') + '\n';
    await ok(workspace, ['log', 'append', '--events', '-'], { input });
    // A torn tail recovered by the next append gives the log a second event type (log.recovered at seq 13).
    writeFileSync(join(logDir(workspace), '000000000001.jsonl'), '{"v":1,"seq":13,"id":"to', { flag: 'a' });
    await ok(workspace, noteArgs('note/c', 'after recovery'));
    lines = storedLines(workspace);
    events = lines.map((line) => StoredEventSchema.parse(JSON.parse(line)));
    expect(events.map((e) => e.type)).toEqual([...Array<string>(12).fill('note.recorded'), 'log.recovered', 'note.recorded']);
  });

  const joined = (selected: string[]): string => selected.map((line) => `${line}\n`).join('');

  it('`log show` prints every stored line byte for byte', async () => {
    expect(await ok(workspace, ['log', 'show'])).toBe(joined(lines));
    expect(await ok(workspace, ['--human', 'log', 'show'])).toBe(joined(lines));
  });

  it('`log show --from --to` bounds are inclusive', async () => {
    expect(await ok(workspace, ['log', 'show', '--from', '3', '--to', '5'])).toBe(joined(lines.slice(2, 5)));
    expect(await ok(workspace, ['log', 'show', '--from', '14'])).toBe(joined(lines.slice(13)));
    expect(await ok(workspace, ['log', 'show', '--to', '1'])).toBe(joined(lines.slice(0, 1)));
    expect(await ok(workspace, ['log', 'show', '--from', '7', '--to', '7'])).toBe(joined(lines.slice(6, 7)));
    expect(await ok(workspace, ['log', 'show', '--from', '15'])).toBe('');
  });

  it('`log show --type/--stream` filter (repeatable, combinable with bounds)', async () => {
    const pick = (keep: (e: StoredEvent) => boolean): string => joined(lines.filter((_, i) => keep(events[i]!)));
    expect(await ok(workspace, ['log', 'show', '--type', 'log.recovered'])).toBe(pick((e) => e.type === 'log.recovered'));
    expect(await ok(workspace, ['log', 'show', '--stream', 'note/b'])).toBe(pick((e) => e.stream === 'note/b'));
    expect(await ok(workspace, ['log', 'show', '--stream', 'note/b', '--stream', 'note/c'])).toBe(pick((e) => e.stream === 'note/b' || e.stream === 'note/c'));
    expect(await ok(workspace, ['log', 'show', '--type', 'note.recorded', '--stream', 'note/a', '--from', '5', '--to', '11'])).toBe(
      pick((e) => e.type === 'note.recorded' && e.stream === 'note/a' && e.seq >= 5 && e.seq <= 11),
    );
    expect(await ok(workspace, ['log', 'show', '--type', 'wu.claimed'])).toBe('');
  });

  it('`log tail` prints the last N lines (default 10)', async () => {
    expect(await ok(workspace, ['log', 'tail', '-n', '3'])).toBe(joined(lines.slice(-3)));
    expect(await ok(workspace, ['log', 'tail'])).toBe(joined(lines.slice(-10)));
    expect(await ok(workspace, ['log', 'tail', '-n', '100'])).toBe(joined(lines));
    expect(await ok(workspace, ['log', 'tail', '-n', '0'])).toBe('');
  });

  it('`log tail -f` prints events another process appends afterwards, and exits 130 on SIGINT with nothing but events on stdout', async () => {
    const follow = await freshWorkspace('baton-follow-');
    await ok(follow, noteArgs('note/f', 'before'));
    const child = startBaton(['--dir', follow, 'log', 'tail', '-f', '-n', '1']);
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      // The last existing event is printed once tail has read the head; later appends follow it.
      await waitFor('tail -f to print the existing event', () => stdout.split('\n').length > 1);
      await ok(follow, noteArgs('note/f', 'after one'));
      await ok(follow, ['log', 'append', '--events', '-', '--batch'], {
        input: `${eventLine('note/f', 'after two')}\n${eventLine('note/f', 'after three')}\n`,
      });
      await waitFor('tail -f to print the new events', () => stdout.split('\n').length > 4);
      expect(stdout).toBe(joined(storedLines(follow)));
    } finally {
      child.kill('SIGINT');
    }
    expect(await closed).toBe(130);
    // Ctrl-C writes no INTERRUPTED envelope into the JSON stream (a `| jq` consumer sees only
    // events); it says so on stderr.
    expect(stdout).toBe(joined(storedLines(follow)));
    expect(stdout.trim().split('\n')).toHaveLength(4);
    expect(stderr).toBe('baton: INTERRUPTED: interrupted (SIGINT)\n');
  });
});

describe('baton log export and import', () => {
  let source = '';
  let exportFile = '';
  let exported: ReturnType<typeof LogExportedEnvelope.parse>;

  beforeAll(async () => {
    source = await freshWorkspace('baton-export-');
    // The sixth event starts the session the last one acts as (a session acting on a write must be live).
    const startExp = JSON.stringify({
      type: 'session.started',
      stream: 'session/session_exp',
      data: { session_id: 'session_exp', display_name: 'Exp', ttl_seconds: 14400 },
    });
    await ok(source, ['log', 'append', '--events', '-'], {
      input: [...Array.from({ length: 5 }, (_, i) => eventLine(`note/x${i % 2}`, `exported ${i} 日本`)), startExp].join('\n') + '\n',
    });
    await ok(source, ['log', 'append', '--events', '-', '--batch', '--idempotency-key', 'b-1'], {
      input: `${eventLine('note/y', 'b1')}\n${eventLine('note/y', 'b2')}\n`,
    });
    await ok(source, ['--session', 'session_exp', ...noteArgs('note/z', 'last')]);
    exportFile = join(makeTempDir('baton-export-file-'), 'log.jsonl');
    const stdout = await ok(source, ['log', 'export', '--out', exportFile]);
    exported = LogExportedEnvelope.parse(jsonLines(stdout)[0]);
  });

  it('`log export --out FILE` writes every stored line as stored and reports the head', async () => {
    const events = storedLines(source).map((line) => StoredEventSchema.parse(JSON.parse(line)));
    expect(exported).toMatchObject({ v: 1, type: 'log_exported', events: 9, head_seq: 9, head_hash: events.at(-1)!.hash });
    expect(readFileSync(exportFile).equals(segmentBytes(source))).toBe(true);
  });

  it('`log import FILE` into a fresh workspace reproduces byte-identical segments and the same head hash', async () => {
    const target = await freshWorkspace('baton-import-');
    const imported = LogImportedEnvelope.parse(jsonLines(await ok(target, ['log', 'import', exportFile]))[0]);
    expect(imported).toMatchObject({ v: 1, type: 'log_imported', events: 9, head_seq: 9, head_hash: exported.head_hash });
    expect(segmentBytes(target).equals(segmentBytes(source))).toBe(true);
    expect(readdirSync(logDir(target))).toEqual(readdirSync(logDir(source)));
    expect(LogVerificationEnvelope.parse(jsonLines(await ok(target, ['log', 'verify']))[0])).toMatchObject({ ok: true, head_seq: 9 });
    // The imported log continues the chain and keeps its idempotency keys.
    const retry = AppendedEnvelope.parse(
      jsonLines(
        await ok(target, ['log', 'append', '--events', '-', '--batch', '--each', '--idempotency-key', 'b-1'], {
          input: `${eventLine('note/y', 'b1')}\n${eventLine('note/y', 'b2')}\n`,
        }),
      )[0],
    );
    expect(retry).toMatchObject({ deduplicated: true, events: [{ seq: 7 }, { seq: 8 }] });
    const next = AppendedEnvelope.parse(jsonLines(await ok(target, noteArgs('note/z', 'continued')))[0]);
    expect(next.events[0]!.seq).toBe(10);
    expect(shownEvents(await ok(target, ['log', 'show', '--from', '10']))[0]!.prev).toBe(exported.head_hash);
  });

  it('`log import -` reads the export from stdin', async () => {
    const target = makeTempDir('baton-import-stdin-');
    const imported = LogImportedEnvelope.parse(jsonLines(await ok(target, ['log', 'import', '-'], { input: readFileSync(exportFile) }))[0]);
    expect(imported).toMatchObject({ events: 9, head_hash: exported.head_hash });
    expect(segmentBytes(target).equals(segmentBytes(source))).toBe(true);
  });

  it('`log import` into a workspace that already has events exits 4 CONFLICT and changes nothing', async () => {
    const target = await freshWorkspace('baton-import-busy-');
    await ok(target, noteArgs('note/a', 'already here'));
    const before = hashTree(join(target, '.baton'));
    const result = await batonIn(target, ['log', 'import', exportFile]);
    expect(result.code).toBe(4);
    expect(errorEnvelopeOf(result).code).toBe('CONFLICT');
    expect(hashTree(join(target, '.baton'))).toEqual(before);
  });

  it('`log import` of a tampered export exits 2 and leaves the target log empty', async () => {
    const original = readFileSync(exportFile, 'utf8').split('\n').slice(0, -1);
    const tampered: { name: string; lines: string[]; names: string }[] = [
      { name: 'a changed payload', lines: original.map((l, i) => (i === 3 ? l.replace('exported 3', 'exported 9') : l)), names: 'seq 4' },
      { name: 'a removed line', lines: original.filter((_, i) => i !== 4), names: 'seq 5' },
      { name: 'a swapped pair', lines: [...original.slice(0, 2), original[3]!, original[2]!, ...original.slice(4)], names: 'seq 3' },
      { name: 'a line that is not JSON', lines: original.map((l, i) => (i === 5 ? l.slice(0, 40) : l)), names: 'line 6' },
    ];
    for (const t of tampered) {
      const file = join(makeTempDir('baton-tampered-'), 'log.jsonl');
      writeFileSync(file, t.lines.map((l) => `${l}\n`).join(''));
      const target = await freshWorkspace('baton-import-tampered-');
      const result = await batonIn(target, ['log', 'import', file]);
      expect(result.code, t.name).toBe(2);
      const error = errorEnvelopeOf(result);
      expect(error.code, t.name).toBe('INVALID_INPUT');
      expect(error.message, t.name).toContain(t.names);
      expect(hashTree(logDir(target)), t.name).toEqual({});
      expect(await ok(target, ['log', 'show']), t.name).toBe('');
    }
  });

  it('`log export --out -` prints the events on stdout and the summary envelope on stderr', async () => {
    const result = await batonIn(source, ['log', 'export', '--out', '-']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(segmentBytes(source).toString('utf8'));
    expect(LogExportedEnvelope.parse(jsonLines(result.stderr)[0])).toMatchObject({ events: 9, head_seq: 9, head_hash: exported.head_hash });
  });
});

describe('human output, version and help', () => {
  it('--human prints text, not JSON, for append, verify and export', async () => {
    const workspace = await freshWorkspace('baton-human-');
    const append = await batonIn(workspace, ['--human', ...noteArgs('note/a', 'for humans')]);
    expect(append.stdout).toMatch(/^appended #1 note\.recorded on note\/a \([0-9a-f]{12}\)\n$/);
    const retry = await batonIn(workspace, ['--human', '--json', ...noteArgs('note/a', 'for humans')]);
    expect(retry.stdout).toMatch(/^appended #2 note\.recorded/);
    const verify = await batonIn(workspace, ['--human', 'log', 'verify']);
    expect(verify.stdout).toBe('log verified: 2 events, seq 1…2, hash chain unbroken\n');
    const file = join(workspace, 'out.jsonl');
    const exported = await batonIn(workspace, ['--human', 'log', 'export', '--out', file]);
    expect(exported.stdout).toBe(`exported 2 events (head seq 2) to ${file}\n`);
  });

  it('`baton --version` prints the package.json version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const result = await runBaton(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${pkg.version}\n`);
  });

  it('`baton --help` lists init, log and replay; `baton log --help` lists every log command; command help has examples', async () => {
    const help = await runBaton(['--help']);
    expect(help.code).toBe(0);
    const commands = help.stdout.slice(help.stdout.indexOf('Commands:'));
    for (const name of ['init', 'log', 'replay']) expect(commands).toMatch(new RegExp(`^\\s+${name}\\b`, 'm'));
    const logHelp = await runBaton(['log', '--help']);
    for (const name of ['append', 'show', 'tail', 'verify', 'stats', 'export', 'import']) expect(logHelp.stdout).toMatch(new RegExp(`^\\s+${name}\\b`, 'm'));
    const appendHelp = await runBaton(['log', 'append', '--help']);
    expect(appendHelp.stdout).toContain('Examples:');
    expect(appendHelp.stdout).toContain('--expected-version');
  });
});
