import { execFile } from 'node:child_process';
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
    expect(sessions.stdout).toContain(`${ids.session}  abandoned  Instrument checkout analytics`);

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

  it('`npm run demo` (dist/src/demo/run.js) runs every part and ends with that `baton status`', async () => {
    // The demo keeps its workspaces (in the temp folder): give it one of ours, removed afterwards.
    const tmp = makeTempDir('baton-demo-full-');
    const { stdout } = await run(process.execPath, [DEMO], { env: childEnv({ TMPDIR: tmp }), maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
    expect(stdout).toContain(`A fresh workspace in ${tmp}/`);
    const lines = stdout.trimEnd().split('\n');
    const statusAt = lines.lastIndexOf('$ baton --human status');
    expect(statusAt).toBeGreaterThan(0);
    const block = statusBlock(lines.slice(statusAt + 1).join('\n'));
    // Nothing after the status block: it is the demo's last word.
    expect(lines.at(-2)).toBe(`Next action: ${block.next}`);
    expect(lines.at(-1)).toBe(`Resume: ${block.resume}`);
    expect(block.active).toBe('none');
    expect(block.next).toBe('A task is waiting for manual verification: click through checkout on the preview deploy and confirm the 12 events arrive.');
    expect(block.resume).toMatch(/^baton task task_[0-9a-f]{24} --dir \S+$/);
    // The earlier parts ran before it.
    for (const part of ['mem converged', 'flow merge', 'orchestrate status', 'task create']) expect(stdout).toContain(part);
  }, 600_000);
});
