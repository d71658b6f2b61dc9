import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OrchestrationResumeEnvelope, OrchestrationStatusEnvelope } from '../../src/app/envelopes/tasks.js';
import { WuLifecycleEnvelope, WuExplanationEnvelope } from '../../src/app/envelopes/work-units.js';
import { childEnv, pathWithBaton, runBaton } from '../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';
import { T0, WuWorkspace } from './helpers.js';

/**
 * A session that holds a work unit and stops: `status`, `resume` and the Claude Code brief name the
 * WU, its last checkpoint and next steps, and the exact commands to go on, which run as printed.
 * A claim by a session started in a linked worktree records that worktree, so `wu explain` finds it.
 */
afterAll(removeTempDirs);

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

/** A workspace that is a git repository with WU-1, and a linked worktree outside it (`../…`). */
async function repositoryWithWorktree(): Promise<{ ws: WuWorkspace; worktree: string }> {
  const ws = await WuWorkspace.create();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws.dir, stdio: 'pipe', env: { ...process.env, ...GIT_ENV } });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(ws.dir, '.gitignore'), '.baton/\n');
  git('add', '.gitignore');
  git('commit', '-q', '-m', 'one');
  await ws.wu(1, 'L1');
  const worktree = join(makeTempDir('baton-wt-'), 'wt-wu1');
  git('worktree', 'add', '-q', '-b', 'wu-1', worktree);
  return { ws, worktree };
}

const sessionIdOf = (run: { last: unknown }): string => z.looseObject({ session: z.looseObject({ id: z.string() }) }).parse(run.last).session.id;

const inShell = (command: string, path: string): string =>
  execFileSync('sh', ['-c', command], { encoding: 'utf8', env: childEnv({ PATH: path, BATON_NOW: T0 }), stdio: 'pipe' });

describe('a session holding a work unit', () => {
  it('claims the worktree it started in, and status, resume and its commands go on from its last checkpoint', async () => {
    const { ws, worktree } = await repositoryWithWorktree();
    const path = relative(ws.dir, worktree);
    expect(path.startsWith('../')).toBe(true);
    const S = sessionIdOf(await ws.ok(['session', 'start', '--worktree', path]));

    // The claim records the session's worktree; `wu explain` finds it on disk.
    const claim = WuLifecycleEnvelope.parse((await ws.ok(['wu', 'claim', 'WU-1'], { session: S })).last);
    expect(claim.claim).toMatchObject({ mode: 'worktree', worktree_path: path });
    const explained = WuExplanationEnvelope.parse((await ws.ok(['wu', 'explain', 'WU-1'])).last);
    expect(explained.predicates.find((p) => p.name === 'workspace_present')?.value).toBe(true);

    await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'parser written', '--progress', '60%', '--next-steps', 'add the CLI flag'], { session: S });
    const status = OrchestrationStatusEnvelope.parse((await ws.ok(['status'], { session: S })).last);
    const next = status.lastStoppingPoint.nextAction;
    expect(next).toEqual({
      kind: 'resume',
      description: 'Continue WU-1 (T1): last checkpoint "parser written"; next steps: add the CLI flag.',
      command: ['baton', 'wu', 'show', 'WU-1', '--dir', ws.dir],
    });
    expect(status.lastStoppingPoint.resumeCommand).toBe(`baton wu show WU-1 --dir ${ws.dir}`);
    const [held, ...more] = status.baton.held_work_units;
    expect(more).toEqual([]);
    expect(held).toMatchObject({
      wu_id: 'WU-1',
      title: 'T1',
      status: 'in_progress',
      claim: { mode: 'worktree', worktree_path: path },
      last_checkpoint: { note: 'parser written', progress: '60%', next_steps: 'add the CLI flag' },
    });
    expect(held!.commands.map((c) => c.command)).toEqual([
      `baton --session ${S} wu checkpoint WU-1 --note '<what changed>' --next-steps '<what comes next>' --dir ${ws.dir}`,
      `baton --session ${S} wu done WU-1 --dir ${ws.dir}`,
      `baton wu explain WU-1 --dir ${ws.dir}`,
    ]);

    const human = (await ws.ok(['--human', 'status'], { session: S })).stdout;
    expect(human).toContain('Next action: Continue WU-1 (T1): last checkpoint "parser written"; next steps: add the CLI flag.');
    expect(human).toContain('Held work units: 1');
    expect(human).toContain('next steps:      add the CLI flag');
    for (const c of held!.commands) expect(human).toContain(c.command);
    expect(human).not.toContain('no task is running');

    const resume = OrchestrationResumeEnvelope.parse((await ws.ok(['resume', S])).last);
    expect(resume.command).toEqual(next.command);
    // The resume command shows the WU with where it stopped.
    const executed = await ws.ok(['resume', S, '--execute']);
    expect(executed.last).toMatchObject({ type: 'wu_detail', wu_id: 'WU-1', last_checkpoint: { note: 'parser written', next_steps: 'add the CLI flag' } });
    const shown = (await ws.ok(['--human', 'wu', 'show', 'WU-1'])).stdout;
    expect(shown).toMatch(/checkpoint: {3}#\d+ \S+ parser written \(60%\)\n/);
    expect(shown).toContain('next steps:   add the CLI flag');
    // No YAML file: no yaml_status line.
    expect(shown).not.toContain('yaml_status');

    // The commands run as printed, from any folder.
    const shell = pathWithBaton();
    inShell(held!.commands[0]!.command, shell);
    inShell(held!.commands[1]!.command, shell);
    const after = OrchestrationStatusEnvelope.parse((await ws.ok(['status'], { session: S })).last);
    expect(after.baton.held_work_units).toEqual([]);
    expect(after.lastStoppingPoint.nextAction.description).toBe('Session is active but no task is running. Re-run the agent to continue.');
  }, 120_000);

  it('a claim names its own worktree over the session one, and a branch claim records none', async () => {
    const { ws, worktree } = await repositoryWithWorktree();
    await ws.wu(2, 'L2');
    const S = sessionIdOf(await ws.ok(['session', 'start', '--worktree', worktree, '--branch', 'wu-1']));
    // An absolute session worktree is recorded relative to the workspace; its branch too.
    const first = WuLifecycleEnvelope.parse((await ws.ok(['wu', 'claim', 'WU-1'], { session: S })).last);
    expect(first.claim).toMatchObject({ worktree_path: relative(ws.dir, worktree), branch: 'wu-1' });
    const second = WuLifecycleEnvelope.parse((await ws.ok(['wu', 'claim', 'WU-2', '--mode', 'branch-only'], { session: S })).last);
    expect(second.claim).toMatchObject({ mode: 'branch-only', worktree_path: null, branch: 'wu-1' });
  }, 120_000);
});

describe('the Claude Code session brief', () => {
  it('names the held work unit, its next steps and the command to checkpoint, not "re-run the agent"', async () => {
    const ws = await WuWorkspace.create();
    await ws.wu(1, 'L1');
    const hook = (source: string) =>
      runBaton(['hook', 'claude-code', 'SessionStart'], {
        input: JSON.stringify({ session_id: 'claude-1', transcript_path: '/tmp/t.jsonl', cwd: ws.dir, hook_event_name: 'SessionStart', source }),
        cwd: ws.dir,
        env: { BATON_NOW: T0, CLAUDE_PROJECT_DIR: ws.dir, BATON_HOOK_DEADLINE_MS: '30000' },
      });
    expect((await hook('startup')).code).toBe(0);
    const S = String(ws.events().find((e) => e.type === 'session.started')!.data['session_id']);
    await ws.ok(['wu', 'claim', 'WU-1'], { session: S });
    await ws.ok(['wu', 'checkpoint', 'WU-1', '--note', 'schema drafted', '--next-steps', 'write the migration'], { session: S });
    const answer = await hook('compact');
    expect(answer.code).toBe(0);
    const brief = z.looseObject({ hookSpecificOutput: z.looseObject({ additionalContext: z.string() }) }).parse(JSON.parse(answer.stdout))
      .hookSpecificOutput.additionalContext;
    expect(brief).toContain('Work unit WU-1 — T1 (claimed, in progress); last checkpoint');
    expect(brief).toContain('schema drafted; next steps: write the migration');
    expect(brief).toContain(`\`baton --session ${S} wu checkpoint WU-1 --note '<what changed>'`);
    expect(brief).toContain('Next action: Continue WU-1 (T1)');
    expect(brief).not.toContain('no task is running');
    expect(brief.length).toBeLessThanOrEqual(2000);
  }, 120_000);
});
