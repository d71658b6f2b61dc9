import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { RETURN_AFTER_MINUTES, TASKS_DEMO_START, tasksDemo } from '../../src/demo/tasks.js';
import { OrchestrationSessionViewEnvelope, OrchestrationStatusEnvelope } from '../../src/app/envelopes/tasks.js';
import { batonIn, childEnv } from '../helpers/cli.js';
import { demoRunnerIn } from '../helpers/demo.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);
const run = promisify(execFile);
const DEMO = fileURLToPath(new URL('../../dist/src/demo/run.js', import.meta.url));

/** The last `Next action:` / `Resume:` block of a human `baton status`. */
function statusBlock(text: string): { active: string; next: string; resume: string; lines: string[] } {
  const lines = text.trimEnd().split('\n');
  const value = (prefix: string): string => lines.find((l) => l.startsWith(prefix))?.slice(prefix.length) ?? '';
  return { active: value('Active session: '), next: value('Next action: '), resume: value('Resume: '), lines };
}

describe('the tasks demo', () => {
  it('ends with `baton status` telling the returning agent to verify the waiting task, and how to resume', async () => {
    const dir = makeTempDir('baton-demo-tasks-');
    await batonIn(dir, ['init']);
    const shown: { cmd: string; code: number; stdout: string; stderr: string }[] = [];
    const ids = await tasksDemo(demoRunnerIn(dir), (cmd, r) => shown.push({ cmd, ...r }));

    // The illegal move was refused (exit 2) with the machine's message.
    const refused = shown.find((s) => s.code !== 0)!;
    expect(refused.cmd).toContain(`task transition ${ids.dashboard} completed`);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Task ${ids.dashboard} cannot transition from 'queued' to 'completed'`);

    // The returning agent sees the orchestrator's session abandoned (no heartbeat for five hours).
    const sessions = shown.find((s) => s.cmd === '--human sessions')!;
    expect(sessions.stdout).toMatch(/^SESSION +NAME +STATUS +CREATED +FINISHED +GOAL$/m);
    expect(sessions.stdout).toMatch(new RegExp(`^${ids.session} +\\S+ +abandoned +\\S+ +- +Instrument checkout analytics$`, 'm'));

    // The last thing shown is the returning agent's `baton status` (human).
    const last = shown.at(-1)!;
    expect(last.cmd).toBe('--human status');
    expect(last.code).toBe(0);
    const block = statusBlock(last.stdout);
    expect(block.active).toBe('none');
    expect(block.lines).toContain('Goal: (none)');
    expect(block.lines).toContain('Active tasks: 2');
    expect(block.lines).toContain('Queued tasks: 1');
    expect(block.lines).toContain('Recently completed: 2');
    expect(block.next).toBe('A task is waiting for manual verification: click through checkout on the preview deploy and confirm the 12 events arrive.');
    expect(block.resume).toBe(`baton task ${ids.instrument} --dir ${dir}`);
    expect(block.lines.at(-2)).toBe(`Next action: ${block.next}`);
    expect(block.lines.at(-1)).toBe(`Resume: ${block.resume}`);

    // The same answer in JSON, at the same moment: the orchestrator's session is abandoned, its
    // subagent for the waiting task never finished, the PR is part of the relevant ownership.
    const back = new Date(Date.parse(TASKS_DEMO_START) + RETURN_AFTER_MINUTES * 60_000).toISOString();
    const st = OrchestrationStatusEnvelope.parse(JSON.parse((await batonIn(dir, ['--json', 'status'], { env: { BATON_NOW: back } })).stdout));
    const lsp = st.lastStoppingPoint;
    expect(lsp.nextAction).toEqual({ kind: 'await_verification', description: block.next, command: ['baton', 'task', ids.instrument, '--dir', dir] });
    expect(lsp.activeTasks.map((t) => t.id).sort()).toEqual([ids.root, ids.instrument].sort());
    expect(lsp.queuedTasks.map((t) => t.id)).toEqual([ids.dashboard]);
    expect(lsp.pendingManualVerifications.map((c) => c.id)).toEqual(['verify-checkout']);
    expect(lsp.relevantOwnership).toContainEqual({
      kind: 'pull_request',
      number: 42,
      repo: 'acme/shop',
      url: 'https://github.com/acme/shop/pull/42',
      state: 'open',
    });
    const session = OrchestrationSessionViewEnvelope.parse(
      JSON.parse((await batonIn(dir, ['--json', 'session', ids.session], { env: { BATON_NOW: back } })).stdout),
    );
    expect(session.session.status).toBe('abandoned');
    expect(session.baton.subagents.map((a) => [a.kind, a.finishedAt === null])).toEqual([
      ['framework_detection', false],
      ['taxonomy', false],
      ['instrumentation', true],
    ]);
  }, 180_000);

  it('`npm run demo` runs every part in human text, ends with that `baton status` and its summary, and removes its workspace (--keep keeps it)', async () => {
    // Each run gets a temporary folder of ours: what the demo leaves there is what it leaves behind.
    const tmp = makeTempDir('baton-demo-full-');
    const keptTmp = makeTempDir('baton-demo-kept-');
    const demo = (dir: string, args: string[]) =>
      run(process.execPath, [DEMO, ...args], { env: childEnv({ TMPDIR: dir }), maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
    const [{ stdout }, kept] = await Promise.all([demo(tmp, []), demo(keptTmp, ['--only', 'signals', '--keep'])]);
    expect(stdout).toContain(`A fresh workspace in ${tmp}/`);
    const lines = stdout.trimEnd().split('\n');
    // Human text throughout: no raw JSON envelope, no line wider than 200 characters.
    expect(lines.filter((l) => /^\s*\{"/.test(l))).toEqual([]);
    expect(lines.filter((l) => l.length > 200)).toEqual([]);

    const statusAt = lines.lastIndexOf('$ baton --human status');
    const summaryAt = lines.lastIndexOf('== What the demo showed');
    expect(statusAt).toBeGreaterThan(0);
    expect(summaryAt).toBeGreaterThan(statusAt);
    const block = statusBlock(lines.slice(statusAt + 1, summaryAt).join('\n'));
    // Nothing between the status block and the summary: it is the demo's last command.
    expect(block.lines.at(-2)).toBe(`Next action: ${block.next}`);
    expect(block.lines.at(-1)).toBe(`Resume: ${block.resume}`);
    expect(block.active).toBe('none');
    expect(block.next).toBe('A task is waiting for manual verification: click through checkout on the preview deploy and confirm the 12 events arrive.');
    expect(block.resume).toMatch(/^baton task task_[0-9a-f]{24} --dir \S+$/);
    // The earlier parts ran before it.
    for (const part of ['mem converged', 'flow merge', 'orchestrate status', 'task create']) expect(stdout).toContain(part);

    // The demo ends with its summary: each part in one line with its key figure, then the workspace removed.
    const summary = lines.slice(summaryAt + 1);
    expect(summary).toHaveLength(6);
    expect(summary.slice(0, 5).map((l) => l.trim().split(/\s{2,}/)[0])).toEqual([
      'The log',
      'Two agents negotiate',
      'A team flow',
      'An initiative in waves',
      'Tasks, last stop',
    ]);
    expect(summary[0]).toMatch(/ 40 appends from 4 processes in \d+ ms; a retry wrote nothing; \d+ events verified; a flipped byte caught at seq \d+$/);
    expect(summary[1]).toContain(' 3 signals (PROPOSE, COUNTER, AGREE); the thread converged');
    expect(summary[2]).toContain(' complete in iteration 2, after 1 failed merge(s) went round the loop');
    expect(summary[3]).toContain(' 4 of 4 WUs done, wave by wave; stalled and contaminated on the way, recovered');
    expect(summary[4]).toMatch(/ 5 tasks, 3 subagents; after the crash, baton status says: A task is waiting for manual verification$/);
    expect(summary[5]).toMatch(/now removed \(npm run demo -- --keep keeps it\)/);
    expect(readdirSync(tmp)).toEqual([]);

    // --keep: the summary's last line names the workspace, and it is there.
    const keptLines = kept.stdout.trimEnd().split('\n');
    expect(keptLines.at(-3)).toBe('== What the demo showed');
    expect(keptLines.at(-2)).toMatch(/^ {2}Two agents negotiate {2}3 signals/);
    const path = /^The workspace is kept in (\S+): try node \S+ --dir \S+ log tail$/.exec(keptLines.at(-1)!)?.[1];
    expect(path).toBeDefined();
    expect(path!.startsWith(`${keptTmp}/`)).toBe(true);
    expect(existsSync(join(path!, '.baton', 'log'))).toBe(true);
  }, 600_000);
});
