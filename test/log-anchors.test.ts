import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashEvent, serializeEvent } from '../src/store/hash.js';
import type { StoredEvent } from '../events/envelope.js';
import { batonIn, childEnv, errorEnvelopeOf, inParallel, jsonLines, type CliResult } from './helpers/cli.js';
import { makeTempDir, removeTempDirs, segmentPaths, storedLines } from './helpers/workspace.js';

/**
 * `baton log anchor` records the log's head as a commit on the repository's `refs/baton/anchors`;
 * `baton log verify` holds the log to every anchor: a log rewritten with every hash recomputed (a
 * valid chain) or cut below an anchor fails, naming the anchor. Each test makes its own repository
 * (`git init`) with its own HOME, so no global git configuration takes part.
 */
afterAll(removeTempDirs);

const REF = 'refs/baton/anchors';
const T0 = '2026-11-22T09:00:00.000Z';

interface Repo {
  dir: string;
  env: Record<string, string>;
}

function git(repo: Repo, args: readonly string[], input?: string, env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('git', args, { cwd: repo.dir, encoding: 'utf8', input: input ?? '', env: childEnv({ ...repo.env, ...env }) });
}

function gitOut(repo: Repo, args: readonly string[], input?: string): string {
  const r = git(repo, args, input);
  expect(r.status, `git ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout.trim();
}

/** A git repository whose top level is a Baton workspace with `events` notes, appended one call each. */
async function repoWithLog(events: number, options: { identity?: boolean } = {}): Promise<Repo> {
  const dir = makeTempDir('baton-anchor-');
  const home = makeTempDir('baton-anchor-home-');
  const repo = { dir, env: { HOME: home, GIT_CONFIG_NOSYSTEM: '1', BATON_NOW: T0 } };
  gitOut(repo, ['init', '-q', '-b', 'main']);
  if (options.identity !== false) {
    gitOut(repo, ['config', 'user.name', 'Ada Tester']);
    gitOut(repo, ['config', 'user.email', 'ada@example.com']);
  }
  expect((await baton(repo, ['init'])).code).toBe(0);
  if (events > 0) await append(repo, 1, events);
  return repo;
}

function baton(repo: Repo, args: readonly string[], input?: string): Promise<CliResult> {
  return batonIn(repo.dir, args, { env: repo.env, ...(input !== undefined ? { input } : {}) });
}

async function append(repo: Repo, first: number, count: number): Promise<void> {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ type: 'note.recorded', stream: 'note/ops', data: { text: `note ${first + i}` } }));
  const r = await baton(repo, ['log', 'append', '--events', '-'], `${lines.join('\n')}\n`);
  expect(r.code, r.stdout + r.stderr).toBe(0);
}

interface AnchorOut {
  anchored: boolean;
  outcome: string;
  seq: number;
  hash: string;
  commit: string | null;
  parent: string | null;
  signed: boolean;
  anchored_at: string;
}

async function anchor(repo: Repo, args: readonly string[] = []): Promise<AnchorOut> {
  const r = await baton(repo, ['log', 'anchor', ...args]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return jsonLines(r.stdout)[0] as AnchorOut;
}

interface CheckedAnchor {
  commit: string;
  seq: number;
  hash: string;
  anchored_at: string;
  status: string;
  found_hash?: string;
  signature: { status: string; signer?: string } | null;
}
interface Verification {
  ok: boolean;
  head_seq: number;
  first_bad: unknown;
  anchors: { ok: boolean; found: number; workspace: string | null; repository: string | null; checked: CheckedAnchor[]; malformed: unknown[] };
}

/** `log verify` in JSON, and with `human` in human mode too (same exit code). */
async function verify(repo: Repo, options: { human?: boolean } = {}): Promise<{ code: number | null; report: Verification; human: string }> {
  const json = await baton(repo, ['--json', 'log', 'verify']);
  if (options.human !== true) return { code: json.code, report: jsonLines(json.stdout)[0] as Verification, human: '' };
  const human = await baton(repo, ['--human', 'log', 'verify']);
  expect(human.code).toBe(json.code);
  return { code: json.code, report: jsonLines(json.stdout)[0] as Verification, human: human.stdout + human.stderr };
}

const chainLength = (repo: Repo): number => Number(gitOut(repo, ['rev-list', '--count', REF]));

/** The stored events, exactly as stored (every key kept). */
function events(repo: Repo): StoredEvent[] {
  return storedLines(repo.dir).map((line) => JSON.parse(line) as StoredEvent);
}

/**
 * A forger with write access to `.baton/`: the event at `seq` gets another payload, and every
 * hash and prev from there on is recomputed, so the chain is valid again.
 */
function rewriteFrom(repo: Repo, seq: number): void {
  const all = events(repo);
  let prev = all[seq - 2]?.hash;
  const lines = all.map((event) => {
    if (event.seq < seq) return serializeEvent(event);
    const forged = {
      ...event,
      ...(event.seq === seq ? { data: { text: 'nothing happened here' } } : {}),
      ...(prev !== undefined ? { prev } : {}),
    } as StoredEvent;
    const { hash: _old, ...unsealed } = forged;
    forged.hash = hashEvent(unsealed);
    prev = forged.hash;
    return serializeEvent(forged);
  });
  writeFileSync(segmentPaths(repo.dir)[0]!, `${lines.join('\n')}\n`);
}

/** Cut the log after `seq` (each event here is a batch of its own, so the rest is a valid shorter log). */
function truncateAfter(repo: Repo, seq: number): void {
  writeFileSync(segmentPaths(repo.dir)[0]!, `${storedLines(repo.dir).slice(0, seq).join('\n')}\n`);
}

describe('baton log anchor', () => {
  it('anchors the head as a commit on refs/baton/anchors; the same head again writes nothing; verify checks it', async () => {
    const repo = await repoWithLog(3);
    const noAnchors = await verify(repo, { human: true });
    expect(noAnchors.code).toBe(0);
    expect(noAnchors.report.anchors).toMatchObject({ ok: true, found: 0, workspace: '.', repository: expect.any(String) });
    expect(noAnchors.human).toBe(
      'log verified: 3 events, seq 1…3, hash chain unbroken\nno anchors of this workspace in refs/baton/anchors (baton log anchor records the head there)\n',
    );

    const head = events(repo).at(-1)!;
    const first = await anchor(repo);
    expect(first).toMatchObject({
      type: 'log_anchor',
      anchored: true,
      outcome: 'anchored',
      seq: 3,
      hash: head.hash,
      parent: null,
      signed: false,
      anchored_at: T0,
    });
    expect(gitOut(repo, ['rev-parse', REF])).toBe(first.commit);
    const message = gitOut(repo, ['log', '-1', '--format=%B', REF]);
    expect(message.split('\n')[0]).toBe(`baton anchor seq=3 hash=${head.hash}`);
    expect(message).toContain(`Baton-Seq: 3\nBaton-Hash: ${head.hash}\nBaton-Anchored-At: ${T0}\nBaton-Workspace: .\nBaton-Store: jsonl`);
    // git's empty tree: an anchor carries no files.
    expect(gitOut(repo, ['rev-parse', `${REF}^{tree}`])).toBe(gitOut(repo, ['hash-object', '-t', 'tree', '/dev/null']));

    const again = await anchor(repo);
    expect(again).toMatchObject({ anchored: false, outcome: 'already_anchored', commit: first.commit, seq: 3 });
    const human = await baton(repo, ['--human', 'log', 'anchor']);
    expect(human.stdout).toContain(`seq 3 (hash ${head.hash.slice(0, 12)}) is already anchored in ${REF}: commit ${first.commit}`);
    expect(chainLength(repo)).toBe(1);

    await append(repo, 4, 2);
    const second = await anchor(repo);
    expect(second).toMatchObject({ anchored: true, seq: 5, parent: first.commit });
    expect(chainLength(repo)).toBe(2);

    const checked = await verify(repo, { human: true });
    expect(checked.code).toBe(0);
    expect(checked.report.anchors).toMatchObject({ ok: true, found: 2, malformed: [] });
    expect(checked.report.anchors.checked.map((a) => [a.seq, a.status, a.commit])).toEqual([
      [5, 'ok', second.commit],
      [3, 'ok', first.commit],
    ]);
    expect(checked.human).toContain(
      'log verified: 5 events, seq 1…5, hash chain unbroken\nanchors: the log matches all 2 of its anchors in refs/baton/anchors (latest: seq 5',
    );
  });

  it('a whole-log rewrite with recomputed hashes passes verify without the anchor ref and fails it with the ref, naming the anchor', async () => {
    const repo = await repoWithLog(5);
    const early = await anchor(repo);
    await append(repo, 6, 3);
    const late = await anchor(repo);
    const original = events(repo);

    rewriteFrom(repo, 3);
    const forged = events(repo);
    expect(forged[2]!.data).toEqual({ text: 'nothing happened here' });
    expect(forged[4]!.hash).not.toBe(original[4]!.hash);

    const caught = await verify(repo, { human: true });
    expect(caught.code).toBe(3);
    expect(caught.report).toMatchObject({ ok: false, first_bad: null, head_seq: 8 });
    expect(caught.report.anchors.checked).toEqual([
      { commit: late.commit, seq: 8, hash: original[7]!.hash, anchored_at: T0, status: 'rewritten', found_hash: forged[7]!.hash, signature: null },
      { commit: early.commit, seq: 5, hash: original[4]!.hash, anchored_at: T0, status: 'rewritten', found_hash: forged[4]!.hash, signature: null },
    ]);
    for (const a of [late, early]) {
      expect(caught.human).toContain(
        `anchor ${a.commit} (seq ${a.seq}, hash ${a.hash}, anchored ${T0}): the event at seq ${a.seq} now has hash ${forged[a.seq - 1]!.hash}: the log was rewritten`,
      );
    }
    expect(caught.human).toMatch(
      /^log NOT valid: its hash chain is unbroken \(8 events, seq 1…8\), but it disagrees with its anchors in refs\/baton\/anchors:/,
    );

    // Without the ref the forgery is a valid log: exactly what anchors are for.
    gitOut(repo, ['update-ref', '-d', REF]);
    const unanchored = await verify(repo);
    expect(unanchored.code).toBe(0);
    expect(unanchored.report).toMatchObject({ ok: true, anchors: { ok: true, found: 0 } });
    gitOut(repo, ['update-ref', REF, late.commit!, '']);
    expect((await verify(repo)).code).toBe(3);
  });

  it('a truncation below the last anchor fails naming it; a truncation above every anchor passes', async () => {
    const repo = await repoWithLog(5);
    const early = await anchor(repo);
    await append(repo, 6, 3);
    const whole = readFileSync(segmentPaths(repo.dir)[0]!);

    truncateAfter(repo, 6);
    const above = await verify(repo);
    expect(above.code).toBe(0);
    expect(above.report).toMatchObject({ ok: true, head_seq: 6 });
    expect(above.report.anchors.checked.map((a) => [a.seq, a.status])).toEqual([[5, 'ok']]);

    writeFileSync(segmentPaths(repo.dir)[0]!, whole);
    const last = await anchor(repo);
    expect(last.seq).toBe(8);
    truncateAfter(repo, 6);
    const below = await verify(repo, { human: true });
    expect(below.code).toBe(3);
    expect(below.report).toMatchObject({ ok: false, head_seq: 6, first_bad: null });
    expect(below.report.anchors.checked.map((a) => [a.seq, a.status, a.commit])).toEqual([
      [8, 'truncated', last.commit],
      [5, 'ok', early.commit],
    ]);
    expect(below.human).toContain(`anchor ${last.commit} (seq 8, hash ${last.hash}, anchored ${T0}): the log ends before seq 8: events were removed`);
    expect(below.human).not.toContain(`anchor ${early.commit}`);

    truncateAfter(repo, 4);
    const both = await verify(repo);
    expect(both.code).toBe(3);
    expect(both.report.anchors.checked.map((a) => a.status)).toEqual(['truncated', 'truncated']);
  });

  it('concurrent anchors never lose a ref update: every anchor reported as written is on the chain', async () => {
    const repo = await repoWithLog(1);
    // Each task appends, then anchors: heads differ, so most anchors land, one after another.
    const outs = await inParallel(
      6,
      Array.from({ length: 6 }, (_, i) => async () => {
        await append(repo, 10 + i, 1);
        return anchor(repo);
      }),
    );
    const written = outs.filter((o) => o.anchored).map((o) => o.commit);
    expect(written.length).toBeGreaterThan(0);
    expect(chainLength(repo)).toBe(written.length);
    expect(gitOut(repo, ['rev-list', REF]).split('\n').sort()).toEqual([...written].sort());

    // All at one head: exactly one writes; the others find it anchored.
    await append(repo, 20, 1);
    const same = await inParallel(
      4,
      Array.from({ length: 4 }, () => () => anchor(repo)),
    );
    expect(same.filter((o) => o.outcome === 'anchored')).toHaveLength(1);
    expect(same.filter((o) => o.outcome === 'already_anchored')).toHaveLength(3);
    expect(new Set(same.map((o) => o.commit)).size).toBe(1);
    expect(chainLength(repo)).toBe(written.length + 1);
    expect((await verify(repo)).code).toBe(0);
  }, 240_000);

  it('an empty log has nothing to anchor; a repository without any git identity still gets anchors', async () => {
    const repo = await repoWithLog(0, { identity: false });
    expect(await anchor(repo)).toMatchObject({ anchored: false, outcome: 'empty_log', seq: 0, commit: null });
    expect(git(repo, ['rev-parse', '-q', '--verify', REF]).status).not.toBe(0);
    await append(repo, 1, 2);
    const written = await anchor(repo);
    expect(written).toMatchObject({ anchored: true, seq: 2 });
    expect(gitOut(repo, ['log', '-1', '--format=%an <%ae>', REF])).toBe('Baton <baton@localhost>');
  });
});

describe('bad input and unusable places', () => {
  it('an unknown flag or an extra argument is exit 2 and writes nothing', async () => {
    const repo = await repoWithLog(2);
    for (const args of [
      ['log', 'anchor', '--bogus'],
      ['log', 'anchor', 'extra'],
      ['log', 'anchor', '--sign=yes'],
    ]) {
      const r = await baton(repo, args);
      expect(r.code, `${args.join(' ')}: ${r.stdout}`).toBe(2);
      expect(errorEnvelopeOf(r).code).toBe('INVALID_INPUT');
    }
    expect(git(repo, ['rev-parse', '-q', '--verify', REF]).status).not.toBe(0);
    expect(git(repo, ['for-each-ref', 'refs/baton']).stdout).toBe('');
  });

  it('--sign without a signing key configured is exit 2 naming --sign, nothing written', async () => {
    const repo = await repoWithLog(1);
    gitOut(repo, ['config', 'gpg.format', 'ssh']);
    gitOut(repo, ['config', 'user.signingkey', join(repo.dir, 'no-such-key')]);
    const r = await baton(repo, ['log', 'anchor', '--sign']);
    expect(r.code).toBe(2);
    expect(errorEnvelopeOf(r)).toMatchObject({ code: 'INVALID_INPUT' });
    expect(errorEnvelopeOf(r).message).toMatch(/^--sign: git could not sign the anchor/);
    expect(git(repo, ['rev-parse', '-q', '--verify', REF]).status).not.toBe(0);
  });

  it('outside a git repository: exit 5 NO_GIT_REPOSITORY; verify checks the log as before', async () => {
    const dir = makeTempDir('baton-anchor-nogit-');
    const env = { BATON_NOW: T0, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
    expect((await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/a', '--data', '{"text":"x"}'], { env })).code).toBe(0);
    const r = await batonIn(dir, ['log', 'anchor'], { env });
    expect(r.code).toBe(5);
    expect(errorEnvelopeOf(r)).toMatchObject({ code: 'NO_GIT_REPOSITORY', details: { dir } });
    expect(errorEnvelopeOf(r).message).toContain('git init');
    const human = await batonIn(dir, ['--human', 'log', 'verify'], { env });
    expect(human.stdout).toBe('log verified: 1 events, seq 1…1, hash chain unbroken\n');
    const json = jsonLines((await batonIn(dir, ['log', 'verify'], { env })).stdout)[0];
    expect(json).toMatchObject({ ok: true, anchors: { ok: true, repository: null, workspace: null, found: 0, checked: [] } });
  });
});

const hasSshKeygen = spawnSync('ssh-keygen', ['-?'], { encoding: 'utf8' }).error === undefined;

describe('signed anchors (git signing with an SSH key)', () => {
  it.skipIf(!hasSshKeygen)('--sign signs through git; verify reports the signature good; a signed anchor edited afterwards is a bad signature', async () => {
    const repo = await repoWithLog(3);
    const key = join(makeTempDir('baton-anchor-key-'), 'id_ed25519');
    expect(spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ada', '-f', key]).status).toBe(0);
    const signers = join(repo.env.HOME!, 'allowed_signers');
    writeFileSync(signers, `ada@example.com ${readFileSync(`${key}.pub`, 'utf8')}`);
    for (const [k, v] of [
      ['gpg.format', 'ssh'],
      ['user.signingkey', key],
      ['gpg.ssh.allowedSignersFile', signers],
    ] as const)
      gitOut(repo, ['config', k, v]);

    const unsigned = await anchor(repo);
    // The same head, now asked signed: a signed anchor is written after the unsigned one.
    const signed = await anchor(repo, ['--sign']);
    expect(signed).toMatchObject({ anchored: true, signed: true, parent: unsigned.commit });
    expect(await anchor(repo, ['--sign'])).toMatchObject({ outcome: 'already_anchored', commit: signed.commit, signed: true });
    expect(git(repo, ['verify-commit', signed.commit!]).status).toBe(0);

    const good = await verify(repo, { human: true });
    expect(good.code).toBe(0);
    expect(good.report.anchors.checked.map((a) => [a.commit, a.signature])).toEqual([
      [signed.commit, { status: 'good', key: expect.stringMatching(/^SHA256:/), signer: 'ada@example.com' }],
      [unsigned.commit, null],
    ]);
    expect(good.human).toContain('signatures: 1 good');

    // Someone edits the signed anchor's message and keeps its signature: git no longer verifies it.
    const raw = gitOut(repo, ['cat-file', 'commit', signed.commit!]);
    const edited = `${raw.replace(`Baton-Anchored-At: ${T0}`, 'Baton-Anchored-At: 2026-11-23T09:00:00.000Z')}\n`;
    const forged = gitOut(repo, ['hash-object', '-t', 'commit', '-w', '--stdin'], edited);
    gitOut(repo, ['update-ref', REF, forged]);
    const bad = await verify(repo, { human: true });
    expect(bad.code).toBe(3);
    expect(bad.report.anchors.checked[0]).toMatchObject({ commit: forged, status: 'ok', signature: { status: 'bad' } });
    expect(bad.human).toContain(`anchor ${forged} (seq 3,`);
    expect(bad.human).toContain('its signature is bad');
  });
});

describe('baton setup git-hooks --anchor', () => {
  it('installs a post-commit hook that anchors after each commit (an existing hook kept and run first); a second run changes nothing', async () => {
    const repo = await repoWithLog(2);
    const hooks = join(repo.dir, '.git', 'hooks');
    mkdirSync(hooks, { recursive: true });
    writeFileSync(join(hooks, 'post-commit'), '#!/bin/sh\necho ran >> "$(git rev-parse --show-toplevel)/user-hook.log"\n');
    chmodSync(join(hooks, 'post-commit'), 0o755);
    const installed = await baton(repo, ['setup', 'git-hooks', '--anchor']);
    expect(installed.code, installed.stdout).toBe(0);
    expect(jsonLines(installed.stdout)[0]).toMatchObject({
      changed: true,
      files: ['.git/hooks/pre-commit', '.git/hooks/post-commit', '.git/hooks/post-commit.baton-chained'],
      hooks: [{ event: 'pre-commit' }, { event: 'post-commit', command: expect.stringMatching(/ log anchor --quiet$/) }],
    });
    expect(readFileSync(join(hooks, 'post-commit'), 'utf8')).toMatch(/\n.* log anchor --quiet \|\| true\n/);
    expect(jsonLines((await baton(repo, ['setup', 'git-hooks', '--anchor'])).stdout)[0]).toMatchObject({ changed: false });

    writeFileSync(join(repo.dir, '.gitignore'), '.baton/\nuser-hook.log\n');
    gitOut(repo, ['add', '.gitignore']);
    const commit = git(repo, ['commit', '-q', '-m', 'one']);
    expect(commit.status, commit.stderr).toBe(0);
    expect(commit.stdout).toBe('');
    expect(readFileSync(join(repo.dir, 'user-hook.log'), 'utf8')).toBe('ran\n');
    expect(gitOut(repo, ['log', '-1', '--format=%s', REF])).toBe(`baton anchor seq=2 hash=${events(repo).at(-1)!.hash}`);

    // A failing anchor (here: a workspace that is a file) never fails a commit.
    writeFileSync(join(repo.dir, 'x.txt'), 'x\n');
    gitOut(repo, ['add', 'x.txt']);
    const failing = git(repo, ['commit', '-q', '-m', 'two'], undefined, { BATON_DIR: join(repo.dir, 'x.txt') });
    expect(failing.status, failing.stderr).toBe(0);
    expect(failing.stderr).toContain('BATON_DIR');
    expect(gitOut(repo, ['rev-list', '--count', 'HEAD'])).toBe('2');
    expect(existsSync(join(hooks, 'post-commit.baton-chained'))).toBe(true);
  });

  it('--anchor is for git-hooks only', async () => {
    const repo = await repoWithLog(0);
    const r = await baton(repo, ['setup', 'codex', '--anchor']);
    expect(r.code).toBe(2);
    expect(errorEnvelopeOf(r).message).toContain('--anchor');
  });
});
