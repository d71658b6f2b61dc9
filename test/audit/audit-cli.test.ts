import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AuditEnvelope, AuditWhyEnvelope } from '../../src/app/envelopes/audit.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { at, WuWorkspace } from '../work-units/helpers.js';

/**
 * `baton audit` on a repository built here (git init, branches, worktrees, a merge, a deleted
 * branch, a commit after done, a stamp written by hand, a YAML and a flow state file edited by hand),
 * through the built binary: exactly the expected findings with their evidence; `--fix` appends the
 * corrective events (each with its finding code) and a second `--fix` appends nothing; `--at` gives
 * the past answer; `audit why` lists the causal chain in log order.
 */
afterAll(removeTempDirs);

type Audit = z.output<typeof AuditEnvelope>;
const MIN = 60;
const HOUR = 3600;
const NOW = at(10 * HOUR);

const CONFIG = `probes:
  wu_yaml_paths:
    - wus
audit:
  stall_window: 8h
  ack_window: 4h
  flow_phase_window: 8h
`;
const YAML = (title: string): string => `id: WU-7\ntitle: ${title}\ninitiative: INIT-1\nlane: L1\nstatus: ready\n`;

let ws: WuWorkspace;
let sessions: { s1: string; s2: string; s3: string };
let wu5ClaimSeq: number;

/** git in the workspace (or a folder of it), its commits dated `offset` seconds after T0. */
function git(args: readonly string[], offset = 0, cwd = ws.dir): string {
  const date = at(offset);
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  });
}

function commitFile(path: string, offset: number, cwd = ws.dir): void {
  mkdirSync(join(cwd, path, '..'), { recursive: true });
  writeFileSync(join(cwd, path), `${path} at ${offset}\n`);
  git(['add', path], offset, cwd);
  git(['commit', '-q', '-m', `change ${path}`], offset, cwd);
}

async function audit(args: readonly string[] = [], now = NOW): Promise<{ code: number | null; envelope: Audit }> {
  const r = await ws.run(['audit', ...args], { now });
  return { code: r.code, envelope: AuditEnvelope.parse(r.last) };
}

const codes = (a: Audit): string[] => a.findings.map((f) => `${f.code} ${f.subject.id}`);
const one = (a: Audit, code: string, subject: string): Audit['findings'][number] => {
  const found = a.findings.filter((f) => f.code === code && f.subject.id === subject);
  expect(found, `${code} ${subject}`).toHaveLength(1);
  return found[0]!;
};

async function build(): Promise<void> {
  ws = await WuWorkspace.create({ config: CONFIG });
  git(['init', '-q', '-b', 'main']);
  writeFileSync(join(ws.dir, '.gitignore'), '.baton/\nworktrees/\nwus/\n.claude/\n');
  git(['add', '.gitignore']);
  git(['commit', '-q', '-m', 'init'], -HOUR);
  for (const [n, lane] of [
    [1, 'L1'],
    [2, 'L2'],
    [3, 'L3'],
    [5, 'L5'],
    [6, 'L6'],
  ] as const)
    await ws.wu(n, lane, ['--code-paths', `src/${['', 'one', 'two', 'three', '', 'five', 'six'][n]}`]);
  await ws.wu(4, 'L4');
  mkdirSync(join(ws.dir, 'wus'));
  writeFileSync(join(ws.dir, 'wus', 'WU-7.yaml'), YAML('Seven'));
  await ws.ok(['wu', 'import', 'wus']);
  await ws.ok(['flow', 'init', 'audit', 'the', 'repository'], { now: at(MIN) });

  const s1 = await ws.startSession({ now: at(MIN) });
  await ws.ok(['wu', 'claim', 'WU-1'], { session: s1, now: at(MIN) });
  await ws.ok(['wu', 'claim', 'WU-2', '--mode', 'branch-only'], { session: s1, now: at(2 * MIN) });
  await ws.ok(['wu', 'claim', 'WU-3', '--mode', 'branch-only'], { session: s1, now: at(3 * MIN) });
  // WU-1 in its worktree; WU-2 and WU-3 on branches of the root checkout.
  git(['worktree', 'add', '-q', '-b', 'lane/l1/wu-1', 'worktrees/l1-wu-1'], MIN);
  commitFile('src/one/a.ts', 10 * MIN, join(ws.dir, 'worktrees/l1-wu-1'));
  for (const [branch, path, offset] of [
    ['lane/l2/wu-2', 'src/two/a.ts', 5 * MIN],
    ['lane/l3/wu-3', 'src/three/a.ts', 6 * MIN],
  ] as const) {
    git(['checkout', '-q', '-b', branch], offset);
    commitFile(path, offset);
    git(['checkout', '-q', 'main'], offset);
  }

  const s2 = await ws.startSession({ now: at(4 * MIN) });
  const claim5 = await ws.ok(['wu', 'claim', 'WU-5'], { session: s2, now: at(4 * MIN) });
  wu5ClaimSeq = z.looseObject({ appended: z.array(z.looseObject({ seq: z.number() })) }).parse(claim5.last).appended[0]!.seq;
  git(['worktree', 'add', '-q', '-b', 'lane/l5/wu-5', 'worktrees/l5-wu-5'], 4 * MIN);
  const s3 = await ws.startSession({ now: at(5 * MIN) });
  await ws.ok(['wu', 'claim', 'WU-6', '--mode', 'branch-only'], { session: s3, now: at(5 * MIN) });
  git(['checkout', '-q', '-b', 'lane/l6/wu-6'], 7 * MIN);
  commitFile('src/six/own.ts', 7 * MIN);
  git(['checkout', '-q', 'main'], 7 * MIN);
  // The probes see the worktrees and branches (orchestrate status records what they see).
  await ws.status({ now: at(8 * MIN) });

  git(['merge', '-q', '--no-ff', '-m', 'merge WU-1', 'lane/l1/wu-1'], 20 * MIN);
  for (const wu of ['WU-1', 'WU-2', 'WU-3']) await ws.ok(['wu', 'done', wu], { session: s1, now: at(30 * MIN) });
  await ws.ok(['session', 'end', s1], { now: at(31 * MIN) });
  // After done: a commit on WU-1's worktree; WU-3's branch deleted unmerged.
  commitFile('src/one/b.ts', 40 * MIN, join(ws.dir, 'worktrees/l1-wu-1'));
  git(['branch', '-q', '-D', 'lane/l3/wu-3'], 41 * MIN);

  await ws.ok(['session', 'heartbeat', s3], { now: at(3 * HOUR) });
  await ws.ok(['mem', 'signal', 'need your parser API', '--to', s2, '--wu', 'WU-5', '--requires-ack'], { session: s3, now: at(4 * HOUR) });
  // Someone edits what WU-6's live claim reserves, on main.
  commitFile('src/six/x.ts', 6 * HOUR);
  await ws.ok(['session', 'heartbeat', s3], { now: at(7 * HOUR) });
  // WU-5's holder went away, and so did its worktree and branch.
  git(['worktree', 'remove', '--force', 'worktrees/l5-wu-5'], 7 * HOUR);
  git(['branch', '-q', '-D', 'lane/l5/wu-5'], 7 * HOUR);
  // By hand: a stamp, a YAML edit, a flow state file edit.
  writeFileSync(join(ws.dir, '.baton', 'stamps', 'WU-4.done'), 'WU WU-4 — T4\nCompleted: 2026-04-17\n');
  writeFileSync(join(ws.dir, 'wus', 'WU-7.yaml'), YAML('Seven, renamed by hand'));
  appendFileSync(join(ws.dir, '.claude', 'orchestration.local.md'), '\nA note typed into the state file.\n');
  await ws.ok(['session', 'heartbeat', s3], { now: at(9 * HOUR + 50 * MIN) });
  sessions = { s1, s2, s3 };
}

beforeAll(build, 240_000);

describe('baton audit on a repository built in the test', () => {
  it('finds exactly the expected disagreements, each with its evidence, and exits 3 on errors', async () => {
    const { code, envelope } = await audit();
    const { s2 } = sessions;
    expect(codes(envelope)).toEqual([
      'STAMP_UNRECORDED WU-4',
      'WU_DONE_UNMERGED WU-2',
      'FLOW_FILE_EDITED .claude/orchestration.local.md',
      expect.stringMatching(/^FLOW_STUCK flow_/),
      `SESSION_LAPSE_UNRECORDED ${s2}`,
      expect.stringMatching(/^SIGNAL_ACK_OVERDUE /),
      'WU_BRANCH_MISSING WU-5',
      'WU_COMMIT_AFTER_DONE WU-1',
      'WU_DONE_NO_COMMITS WU-3',
      'WU_HOLDER_NOT_LIVE WU-5',
      'WU_RESERVATION_VIOLATED WU-6',
      'WU_STALLED WU-5',
      'WU_STALLED WU-6',
      'WU_WORKTREE_MISSING WU-5',
      'WU_YAML_UNRECORDED WU-7',
    ]);
    expect(code).toBe(3);
    expect(envelope).toMatchObject({ ok: false, fail_on: 'error', counts: { error: 2, warn: 13, info: 0 }, fixed: [] });
    expect(envelope.repository).toMatchObject({ integration: { name: 'main', ref: 'refs/heads/main' } });

    const unmerged = one(envelope, 'WU_DONE_UNMERGED', 'WU-2');
    expect(unmerged.evidence.events.map((e) => e.type)).toEqual(['wu.claimed', 'wu.stamped']);
    expect(unmerged.evidence.git.filter((g) => g.kind === 'commit').map((g) => g.name)).toEqual(['change src/two/a.ts']);
    expect(unmerged.resolve).toBe('git checkout main && git merge --no-ff lane/l2/wu-2');
    expect(
      one(envelope, 'WU_COMMIT_AFTER_DONE', 'WU-1')
        .evidence.git.filter((g) => g.kind === 'commit')
        .map((g) => g.name),
    ).toEqual(['change src/one/b.ts']);
    expect(one(envelope, 'WU_DONE_NO_COMMITS', 'WU-3').evidence.git).toEqual([{ kind: 'branch', id: null, name: 'lane/l3/wu-3', detail: 'does not exist' }]);
    const violated = one(envelope, 'WU_RESERVATION_VIOLATED', 'WU-6');
    expect(violated.evidence.git.map((g) => g.name)).toEqual(['change src/six/x.ts']);
    expect(violated.resolve).toBe(`baton mem signal '<what changed and why>' --to ${sessions.s3} --wu WU-6`);
    const worktree = one(envelope, 'WU_WORKTREE_MISSING', 'WU-5');
    expect(worktree.message).toContain('no longer exists (the log last saw it present');
    expect(worktree.evidence.events.map((e) => e.type)).toEqual(['wu.claimed', 'observation.worktree']);
    expect(worktree.fixable).toBe(true);
    const stamp = one(envelope, 'STAMP_UNRECORDED', 'WU-4');
    expect(stamp.evidence.files[0]).toMatchObject({ path: '.baton/stamps/WU-4.done', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(stamp.resolve).toBe('baton audit --fix');
    const yaml = one(envelope, 'WU_YAML_UNRECORDED', 'WU-7');
    expect(yaml.message).toContain('title');
    expect(yaml.evidence.files[0]!.sha256).not.toBe(yaml.evidence.files[0]!.expected_sha256);
    const flowFile = one(envelope, 'FLOW_FILE_EDITED', '.claude/orchestration.local.md');
    expect(flowFile.resolve).toBe('baton flow status');
    expect(envelope.findings.filter((f) => f.fixable).map((f) => f.code)).toEqual([
      'STAMP_UNRECORDED',
      'SESSION_LAPSE_UNRECORDED',
      'WU_BRANCH_MISSING',
      'WU_WORKTREE_MISSING',
      'WU_YAML_UNRECORDED',
    ]);
  });

  it('--fail-on warn fails on warnings too; bad input names its flag', async () => {
    const human = await ws.run(['audit', '--human', '--fail-on', 'warn'], { now: NOW });
    expect(human.code).toBe(3);
    expect(human.stdout).toMatch(/^Errors \(2\):$/m);
    expect(human.stdout).toMatch(/^Warnings \(13\):$/m);
    expect(human.stdout).toContain('resolve: baton audit why WU-3');
    const bad = await ws.run(['audit', '--fail-on', 'info'], { now: NOW });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('--fail-on: must be warn or error');
    const both = await ws.run(['audit', '--fix', '--at', '3'], { now: NOW });
    expect(both.code).toBe(2);
    expect(both.stdout).toContain('--at');
  });

  it('the MCP audit tool answers the same envelope, read-only', async () => {
    const head = ws.headSeq();
    const client = await connectMcp(ws.dir, sessions.s3, NOW);
    try {
      const result = await client.callTool({ name: 'audit', arguments: { fail_on: 'warn' } });
      const envelope = AuditEnvelope.parse(JSON.parse((result.content as { text: string }[])[0]!.text));
      expect(envelope).toMatchObject({ ok: false, fail_on: 'warn', counts: { error: 2, warn: 13, info: 0 } });
      expect(codes(envelope)).toEqual(codes((await audit()).envelope));
    } finally {
      await client.close();
    }
    expect(ws.headSeq()).toBe(head);
  });

  it('--at gives the answer as of a past position (the repository as it is now); a time gives the same as its seq', async () => {
    const past = await audit(['--at', String(wu5ClaimSeq)]);
    expect(past.envelope.as_of).toEqual({ seq: wu5ClaimSeq, at: at(4 * MIN) });
    // Then every holder was live and no claim old; the stamps `wu done` wrote later are files the log of then does not explain.
    expect(codes(past.envelope)).toEqual([
      'STAMP_UNRECORDED WU-1',
      'STAMP_UNRECORDED WU-2',
      'STAMP_UNRECORDED WU-3',
      'STAMP_UNRECORDED WU-4',
      'FLOW_FILE_EDITED .claude/orchestration.local.md',
      'WU_YAML_UNRECORDED WU-7',
    ]);
    expect(past.envelope.head_seq).toBeGreaterThan(wu5ClaimSeq);
    const byTime = await audit(['--at', at(4 * MIN)]);
    expect(byTime.envelope.findings).toEqual(past.envelope.findings);
  });

  it('--fix appends the corrective events, each with its finding code; a second --fix appends nothing', async () => {
    const before = ws.headSeq();
    const { envelope } = await audit(['--fix']);
    expect(envelope.fixed.map((f) => [f.type, f.code, f.subject])).toEqual([
      ['session.lapsed', 'SESSION_LAPSE_UNRECORDED', sessions.s2],
      ['wu.released', 'WU_WORKTREE_MISSING', 'WU-5'],
      ['observation.stamp_file', 'STAMP_UNRECORDED', 'WU-4'],
      ['observation.wu_yaml', 'WU_YAML_UNRECORDED', 'WU-7'],
    ]);
    const appended = ws.events().filter((e) => e.seq > before);
    expect(appended.map((e) => e.seq)).toEqual(envelope.fixed.map((f) => f.seq));
    for (const [i, e] of appended.entries())
      expect((e.data as { audit?: unknown }).audit).toEqual({ code: envelope.fixed[i]!.code, reason: expect.any(String) });
    expect(codes(envelope)).toEqual([
      'WU_DONE_UNMERGED WU-2',
      'FLOW_FILE_EDITED .claude/orchestration.local.md',
      expect.stringMatching(/^FLOW_STUCK flow_/),
      expect.stringMatching(/^SIGNAL_ACK_OVERDUE /),
      'WU_COMMIT_AFTER_DONE WU-1',
      'WU_DONE_NO_COMMITS WU-3',
      'WU_RESERVATION_VIOLATED WU-6',
      'WU_STALLED WU-6',
    ]);
    const head = ws.headSeq();
    const again = await audit(['--fix']);
    expect(again.envelope.fixed).toEqual([]);
    expect(ws.headSeq()).toBe(head);
    expect(again.envelope.findings).toEqual(envelope.findings);
  });

  it('audit why lists the causal chain of a WU across streams, in log order; an unknown WU is UNKNOWN_ID', async () => {
    const r = await ws.ok(['audit', 'why', 'WU-5'], { now: NOW });
    const why = AuditWhyEnvelope.parse(r.last);
    expect(why.chain.map((l) => l.type)).toEqual([
      'wu.defined',
      'session.started',
      'wu.claimed',
      'observation.worktree',
      'observation.branch',
      'signal.sent',
      'session.lapsed',
      'wu.released',
    ]);
    const seqs = why.chain.map((l) => l.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(why.chain[2]).toMatchObject({ actor: sessions.s2, text: expect.stringContaining(`claimed by ${sessions.s2}`) });
    expect(why.chain[5]!.text).toContain('ACK required');
    expect(why.chain[7]!.text).toContain('WU_WORKTREE_MISSING');
    const human = await ws.run(['audit', 'why', 'WU-5', '--human'], { now: NOW });
    expect(human.stdout.split('\n')[0]).toBe(`WU-5: 8 events (log head ${ws.headSeq()})`);
    const unknown = await ws.fail(['audit', 'why', 'WU-99'], 2);
    expect(unknown.code).toBe('UNKNOWN_ID');
  });
});
