import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batonIn, childEnv, errorEnvelopeOf, jsonLines, startBaton } from '../helpers/cli.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { hashTree, makeTempDir, removeTempDirs, segmentBytes } from '../helpers/workspace.js';
import { newWorkspaceId } from './postgres-harness.js';

// `baton` itself, as a child process, on a PostgreSQL store: every foundation command, the
// JSONL ⇄ PostgreSQL moves of `log export` / `log import`, and the failures of a store that is
// down or badly configured.
let cluster: PostgresCluster;
let stopped: PostgresCluster;

beforeAll(async () => {
  [cluster, stopped] = await Promise.all([startPostgresCluster(), startPostgresCluster()]);
  await stopped.stop();
});

afterAll(async () => {
  await cluster?.stop();
  removeTempDirs();
});

const NOW = '2026-03-04T05:06:07.000Z';

function pgEnv(url: string): Record<string, string> {
  return { BATON_STORE_URL: url, BATON_NOW: NOW };
}

async function appendNotes(dir: string, env: Record<string, string>, count: number, stream = 'note/ops'): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', stream, '--data', JSON.stringify({ text: `note ${i}` })], {
      env,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
  }
}

describe('baton on PostgreSQL: the foundation commands', () => {
  it('appends, shows, tails, verifies, reports stats and replays, writing only projections locally', async () => {
    const dir = makeTempDir();
    const env = pgEnv(cluster.urlFor(newWorkspaceId('cli')));
    expect((await batonIn(dir, ['init'], { env })).code).toBe(0);
    await appendNotes(dir, env, 3);
    const keyed = await batonIn(
      dir,
      [
        'log',
        'append',
        '--type',
        'note.recorded',
        '--stream',
        'note/b',
        '--data',
        '{"text":"k"}',
        '--idempotency-key',
        'k1',
        '--expected-version',
        'no_stream',
      ],
      { env },
    );
    expect(keyed.code).toBe(0);
    const again = await batonIn(
      dir,
      [
        'log',
        'append',
        '--type',
        'note.recorded',
        '--stream',
        'note/b',
        '--data',
        '{"text":"k"}',
        '--idempotency-key',
        'k1',
        '--expected-version',
        'no_stream',
      ],
      { env },
    );
    expect(jsonLines(again.stdout)[0]).toMatchObject({ type: 'appended', deduplicated: true, events: [{ seq: 4 }] });
    const conflict = await batonIn(
      dir,
      ['log', 'append', '--type', 'note.recorded', '--stream', 'note/b', '--data', '{"text":"late"}', '--expected-version', '0'],
      { env },
    );
    expect(conflict.code).toBe(4);
    expect(errorEnvelopeOf(conflict).code).toBe('CONFLICT');

    const show = await batonIn(dir, ['log', 'show'], { env });
    expect(show.code).toBe(0);
    const lines = show.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect((await batonIn(dir, ['log', 'show', '--stream', 'note/b'], { env })).stdout.trim()).toBe(lines[3]);
    expect((await batonIn(dir, ['log', 'tail', '-n', '2'], { env })).stdout.trim().split('\n')).toEqual(lines.slice(2));

    const verify = await batonIn(dir, ['log', 'verify'], { env });
    expect(jsonLines(verify.stdout)[0]).toMatchObject({ type: 'log_verification', ok: true, head_seq: 4, checked: 4, first_bad: null });
    // A thousand events in one atomic batch: enough for the projection runner to leave a snapshot.
    const bulk = join(dir, 'bulk.jsonl');
    writeFileSync(
      bulk,
      Array.from({ length: 1000 }, (_, i) => JSON.stringify({ type: 'note.recorded', stream: 'note/bulk', data: { text: `bulk ${i}` } })).join('\n'),
    );
    const bulkAppend = await batonIn(dir, ['log', 'append', '--events', bulk, '--batch'], { env });
    expect(bulkAppend.code, bulkAppend.stdout).toBe(0);
    const stats = jsonLines((await batonIn(dir, ['log', 'stats'], { env })).stdout)[0];
    expect(stats).toMatchObject({ type: 'log_stats', head_seq: 1004, events: 1004, streams: 3, segments: 0, by_type: { 'note.recorded': 1004 } });
    const replay = await batonIn(dir, ['replay', '--view', 'log_stats', '--to', '2'], { env });
    expect(replay.code, replay.stdout).toBe(0);
    expect(jsonLines(replay.stdout)[0]).toMatchObject({ head_seq: 2, events: 2 });

    // The log lives in PostgreSQL: nothing under .baton/log; projections still go to .baton/cache.
    expect(segmentBytes(dir).length).toBe(0);
    expect(Object.keys(hashTree(join(dir, '.baton'))).some((path) => path.startsWith('cache/') && !path.endsWith('/'))).toBe(true);
  });

  it('follows appends made by another process with log tail -f (LISTEN/NOTIFY across processes)', async () => {
    const dir = makeTempDir();
    const env = pgEnv(cluster.urlFor(newWorkspaceId('tail')));
    await appendNotes(dir, env, 1);
    const follower = startBaton(['--dir', dir, 'log', 'tail', '-n', '1', '-f'], { env });
    let out = '';
    follower.stdout.setEncoding('utf8');
    follower.stdout.on('data', (chunk: string) => (out += chunk));
    try {
      const lineCount = (): number => out.split('\n').filter(Boolean).length;
      const deadline = Date.now() + 15_000;
      while (lineCount() < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await appendNotes(dir, env, 2, 'note/live');
      while (lineCount() < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const seqs = out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { seq: number }).seq);
      expect(seqs).toEqual([1, 2, 3]);
    } finally {
      follower.kill('SIGINT');
    }
  });
});

describe('baton on PostgreSQL: log export / log import between JSONL and PostgreSQL', () => {
  it('moves a JSONL log into PostgreSQL and back with seq, ids and hashes preserved, byte for byte', async () => {
    const source = makeTempDir();
    const jsonlEnv = { BATON_NOW: NOW };
    await appendNotes(source, jsonlEnv, 5);
    const batch = [
      { type: 'note.recorded', stream: 'note/x', data: { text: 'unicode ✓ "quoted" \\ back', nested: undefined } },
      { type: 'note.recorded', stream: 'note/y', data: { text: 'second of the batch' } },
    ].map((e) => JSON.stringify(e));
    const events = join(source, 'batch.jsonl');
    writeFileSync(events, batch.join('\n') + '\n');
    expect((await batonIn(source, ['log', 'append', '--events', events, '--batch', '--idempotency-key', 'batch-1'], { env: jsonlEnv })).code).toBe(0);
    const exported = join(source, 'export-1.jsonl');
    expect((await batonIn(source, ['log', 'export', '--out', exported], { env: jsonlEnv })).code).toBe(0);
    const original = readFileSync(exported);
    expect(original.equals(segmentBytes(source))).toBe(true);

    // JSONL → PostgreSQL
    const pgDir = makeTempDir();
    const pgWorkspace = newWorkspaceId('moved');
    mkdirSync(join(pgDir, '.baton'), { mode: 0o700 });
    writeFileSync(join(pgDir, '.baton', 'config.yaml'), `store:\n  kind: postgres\n  url: "${cluster.appUrl}"\n  workspace_id: ${pgWorkspace}\n`);
    const imported = await batonIn(pgDir, ['log', 'import', exported], { env: { BATON_NOW: NOW } });
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    expect(jsonLines(imported.stdout)[0]).toMatchObject({ type: 'log_imported', events: 7, head_seq: 7 });
    expect(jsonLines((await batonIn(pgDir, ['log', 'verify'], { env: { BATON_NOW: NOW } })).stdout)[0]).toMatchObject({ ok: true, head_seq: 7, checked: 7 });
    const fromPg = join(pgDir, 'export-2.jsonl');
    expect((await batonIn(pgDir, ['log', 'export', '--out', fromPg], { env: { BATON_NOW: NOW } })).code).toBe(0);
    expect(readFileSync(fromPg).equals(original)).toBe(true);
    // The idempotency key came along: a retry of the batch is deduplicated on PostgreSQL.
    const retry = await batonIn(pgDir, ['log', 'append', '--events', events, '--batch', '--each', '--idempotency-key', 'batch-1'], { env: { BATON_NOW: NOW } });
    expect(jsonLines(retry.stdout)[0]).toMatchObject({ deduplicated: true, events: [{ seq: 6 }, { seq: 7 }] });
    // Importing again into the now non-empty PostgreSQL workspace is a conflict.
    const twice = await batonIn(pgDir, ['log', 'import', exported], { env: { BATON_NOW: NOW } });
    expect(twice.code).toBe(4);

    // PostgreSQL → JSONL, after PostgreSQL has grown the log
    await appendNotes(pgDir, { BATON_NOW: NOW }, 2, 'note/after-move');
    const grown = join(pgDir, 'export-3.jsonl');
    expect((await batonIn(pgDir, ['log', 'export', '--out', grown], { env: { BATON_NOW: NOW } })).code).toBe(0);
    const back = makeTempDir();
    expect((await batonIn(back, ['log', 'import', grown], { env: jsonlEnv })).code).toBe(0);
    expect(segmentBytes(back).equals(readFileSync(grown))).toBe(true);
    expect(jsonLines((await batonIn(back, ['log', 'verify'], { env: jsonlEnv })).stdout)[0]).toMatchObject({ ok: true, head_seq: 9, checked: 9 });
    const final = join(back, 'export-4.jsonl');
    expect((await batonIn(back, ['log', 'export', '--out', final], { env: jsonlEnv })).code).toBe(0);
    expect(readFileSync(final).equals(readFileSync(grown))).toBe(true);
  });
});

describe('baton on PostgreSQL: anchors', () => {
  it("a workspace in a git repository anchors the store's head; verify reads the anchored seqs from the store", async () => {
    const dir = makeTempDir();
    const workspaceId = newWorkspaceId('anchor');
    const env = { ...pgEnv(cluster.urlFor(workspaceId)), HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (args: string[], input = ''): string => execFileSync('git', args, { cwd: dir, input, encoding: 'utf8', env: childEnv(env) }).trim();
    git(['init', '-q']);
    git(['config', 'user.name', 'Ada']);
    git(['config', 'user.email', 'ada@example.com']);
    await appendNotes(dir, env, 3);
    const anchored = await batonIn(dir, ['log', 'anchor'], { env });
    expect(anchored.code, anchored.stdout).toBe(0);
    const out = jsonLines(anchored.stdout)[0] as { commit: string; hash: string };
    expect(out).toMatchObject({ anchored: true, seq: 3, store: { kind: 'postgres', id: workspaceId }, workspace: '.' });
    expect(git(['log', '-1', '--format=%B', 'refs/baton/anchors'])).toContain(`Baton-Store: postgres\nBaton-Store-Id: ${workspaceId}`);
    const verified = await batonIn(dir, ['log', 'verify'], { env });
    expect(verified.code).toBe(0);
    expect(jsonLines(verified.stdout)[0]).toMatchObject({ ok: true, anchors: { ok: true, found: 1, checked: [{ seq: 3, status: 'ok' }] } });

    // An anchor of seq 2 with a hash the store does not have: the store's event at seq 2 is read and differs.
    const message = git(['log', '-1', '--format=%B', 'refs/baton/anchors']).replace(/seq=3 hash=\w+/, `seq=2 hash=${'e'.repeat(64)}`);
    const forged = git(
      ['commit-tree', git(['rev-parse', 'refs/baton/anchors^{tree}']), '-p', out.commit, '-F', '-'],
      message.replace('Baton-Seq: 3', 'Baton-Seq: 2').replace(out.hash, 'e'.repeat(64)) + '\n',
    );
    git(['update-ref', 'refs/baton/anchors', forged]);
    const caught = await batonIn(dir, ['log', 'verify'], { env });
    expect(caught.code).toBe(3);
    expect(jsonLines(caught.stdout)[0]).toMatchObject({
      ok: false,
      anchors: {
        checked: [
          { commit: forged, seq: 2, status: 'rewritten' },
          { seq: 3, status: 'ok' },
        ],
      },
    });
  });
});

describe('baton on PostgreSQL: a store that is down or badly configured', () => {
  it('exits 5 STORE_UNAVAILABLE naming host and port when the server is down, writing nothing', async () => {
    const dir = makeTempDir();
    const before = hashTree(dir);
    const env = pgEnv(stopped.urlFor('ws-down'));
    for (const args of [
      ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"lost?"}'],
      ['log', 'show'],
      ['log', 'verify'],
      ['log', 'stats'],
    ]) {
      const result = await batonIn(dir, args, { env });
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(5);
      const error = errorEnvelopeOf(result);
      expect(error.code).toBe('STORE_UNAVAILABLE');
      expect(error.message).toContain(`${stopped.socketDir}:${stopped.port}`);
      expect(error.message).toContain('nothing was written');
    }
    const human = await batonIn(dir, ['--human', 'log', 'show'], { env });
    expect(human.code).toBe(5);
    expect(human.stderr).toMatch(/^baton: STORE_UNAVAILABLE: cannot reach PostgreSQL at .+:\d+ /);
    expect(hashTree(dir)).toEqual(before);
  });

  it('exits 2 INVALID_INPUT for a missing workspace_id or a bad URL, before connecting, writing nothing', async () => {
    const dir = makeTempDir();
    const before = hashTree(dir);
    const cases: [Record<string, string>, string][] = [
      [{ BATON_STORE_URL: cluster.appUrl }, 'workspace_id'],
      [{ BATON_STORE_URL: 'mysql://localhost/baton' }, 'BATON_STORE_URL'],
      [{ BATON_STORE_URL: 'postgres://localhost:99999/baton?workspace_id=w' }, 'URL'],
      [{ BATON_STORE_URL: 'postgres://localhost/baton?workspace_id=w&port=0' }, 'port'],
      [{ BATON_STORE_URL: `${cluster.appUrl}&workspace_id=${encodeURIComponent('../escape')}` }, 'workspace_id'],
    ];
    for (const [env, field] of cases) {
      const result = await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"x"}'], { env });
      expect(result.code, JSON.stringify(env) + result.stdout).toBe(2);
      const error = errorEnvelopeOf(result);
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toContain(field);
    }
    expect(hashTree(dir)).toEqual(before);
    // The same through .baton/config.yaml: kind postgres without workspace_id.
    mkdirSync(join(dir, '.baton'), { mode: 0o700 });
    writeFileSync(join(dir, '.baton', 'config.yaml'), `store:\n  kind: postgres\n  url: "${cluster.appUrl}"\n`);
    const withConfig = hashTree(dir);
    const result = await batonIn(dir, ['log', 'show'], { env: {} });
    expect(result.code).toBe(2);
    expect(errorEnvelopeOf(result).message).toContain('store.workspace_id');
    expect(hashTree(dir)).toEqual(withConfig);
  });
});
