import { afterAll, describe, expect, it } from 'vitest';
import { BatonAppContext } from '../../src/app/app-context.js';
import { heartbeatSessionEnvelope, startSessionEnvelope } from '../../src/app/commands/sessions.js';
import { startSubagentEnvelope } from '../../src/app/commands/subagents.js';
import { listTasks } from '../../src/app/commands/task-views.js';
import { createTaskEnvelope, ownTaskEnvelope, transitionTask } from '../../src/app/commands/tasks.js';
import type { AppContext } from '../../src/app/context.js';
import { errorEnvelope, type ErrorEnvelope } from '../../src/app/error-envelope.js';
import { errorEnvelopeOf } from '../helpers/cli.js';
import { CountingContext } from '../helpers/counting-store.js';
import { T0, workspace } from '../helpers/coordination.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * The tasks and sessions commands name an input at fault by its domain field (`pr_state`,
 * `checkpoint_id`, `session_id`), also inside words that name other inputs, so a surface other than
 * the CLI (a library caller, the MCP server: its argument is the field) never reads a CLI flag; the
 * CLI, running the same functions, still names `--pr-state` and `--checkpoint-id`.
 */
function appIn(dir: string, session?: string): BatonAppContext {
  return new BatonAppContext({
    dir,
    session,
    env: { BATON_NOW: T0 },
    output: { mode: 'json', warn: () => undefined },
    names: { dir: '--dir', session: '--session' },
  });
}

/** Run `body` with an application context; the error envelope it is refused with, named as MCP names it (by the field). */
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

async function as<T>(dir: string, session: string | undefined, body: (app: AppContext) => Promise<T>): Promise<T> {
  const app = appIn(dir, session);
  try {
    return await body(app);
  } finally {
    await app.close();
  }
}

describe('tasks and sessions refusals name the domain field', () => {
  it('create, transition, own, subagent start, heartbeat and tasks: the field, never a flag; the CLI keeps its flags', async () => {
    const ws = await workspace();
    const S = (await as(ws.dir, undefined, (app) => startSessionEnvelope(app, {}))).session.id;
    const T = (await as(ws.dir, S, (app) => createTaskEnvelope(app, { label: 'scan', state: 'running' }))).task.id;
    const head = ws.head();

    expect(await refused(ws.dir, undefined, (app) => createTaskEnvelope(app, { label: 'x' }))).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'session is required (or set BATON_SESSION)',
      details: { field: 'session' },
    });
    expect(await refused(ws.dir, S, (app) => createTaskEnvelope(app, { label: 'x', subagent_kind: 'Bad' }))).toMatchObject({
      message: 'subagent_kind: must match ^[a-z][a-z0-9_]{0,63}$',
      details: { field: 'subagent_kind' },
    });
    expect(await refused(ws.dir, S, (app) => createTaskEnvelope(app, { label: 'x', active_form: '' }))).toMatchObject({
      message: 'active_form: must not be empty',
    });
    expect(await refused(ws.dir, S, (app) => createTaskEnvelope(app, { label: 'x', parent: 'nope' }))).toMatchObject({
      message: "Expected task_<id>, got 'nope'",
      details: { field: 'parent' },
    });

    const transition = (input: Record<string, string>) => (app: AppContext) => transitionTask(app, { task: T, state: 'running', ...input });
    expect(await refused(ws.dir, S, transition({ state: 'waiting_for_user', checkpoint_kind: 'user_choice' }))).toMatchObject({
      message: 'checkpoint_id: checkpoint_id and checkpoint_kind must be given together',
      details: { field: 'checkpoint_id' },
    });
    expect(await refused(ws.dir, S, transition({ state: 'failed', error_class: 'network' }))).toMatchObject({
      message: 'error_message: error_class and error_message must be given together',
    });
    expect(await refused(ws.dir, S, transition({ summary: 'done' }))).toMatchObject({
      message: 'summary: has no effect unless the target is terminal; refused rather than ignored',
      details: { field: 'summary' },
    });
    expect(await refused(ws.dir, S, transition({ state: 'superseded', superseded_by: T }))).toMatchObject({
      message: 'superseded_by: a task cannot supersede itself',
    });

    const own = (input: Record<string, string>) => (app: AppContext) => ownTaskEnvelope(app, { task: T, ...input });
    expect(await refused(ws.dir, S, own({ branch: 'a', file: 'b' }))).toMatchObject({
      message: 'branch: give exactly one of branch, worktree, pr, file (got branch, file)',
      details: { field: 'branch' },
    });
    expect(await refused(ws.dir, S, own({ branch: 'a', pr_state: 'open' }))).toMatchObject({
      message: 'pr_state: only with pr',
      details: { field: 'pr_state' },
    });
    expect(await refused(ws.dir, S, own({ pr: 'https://example.com/a/b/pull/1', pr_state: 'maybe' }))).toMatchObject({
      message: 'pr_state: must be one of open, closed, merged',
    });

    expect(await refused(ws.dir, S, (app) => startSubagentEnvelope(app, { kind: 'review' }))).toMatchObject({
      message: 'root_task: is required',
      details: { field: 'root_task' },
    });
    expect(await refused(ws.dir, undefined, (app) => heartbeatSessionEnvelope(app, {}))).toMatchObject({
      message: 'session_id: give a session id, or act as one with session / BATON_SESSION',
      details: { field: 'session_id' },
    });
    expect(await refused(ws.dir, undefined, (app) => listTasks(app, { session_id: 'nope' }))).toMatchObject({
      message: "Expected session_<id>, got 'nope'",
      details: { field: 'session_id' },
    });
    expect(ws.head()).toBe(head);

    // The same rules on the command line: every input named by its flag, also inside the words.
    const prState = errorEnvelopeOf(await ws.run(['task', 'own', T, '--branch', 'a', '--pr-state', 'open'], { as: S }));
    expect(prState).toMatchObject({ message: '--pr-state: only with --pr', details: { field: '--pr-state' } });
    const kinds = errorEnvelopeOf(await ws.run(['task', 'own', T, '--branch', 'a', '--file', 'b'], { as: S }));
    expect(kinds.message).toBe('--branch: give exactly one of --branch, --worktree, --pr, --file (got --branch, --file)');
    const checkpoint = errorEnvelopeOf(await ws.run(['task', 'transition', T, 'waiting_for_user', '--checkpoint-kind', 'user_choice'], { as: S }));
    expect(checkpoint).toMatchObject({
      message: '--checkpoint-id: --checkpoint-id and --checkpoint-kind must be given together',
      details: { field: '--checkpoint-id' },
    });
    const heartbeat = errorEnvelopeOf(await ws.run(['session', 'heartbeat']));
    expect(heartbeat).toMatchObject({ message: 'id: give a session id, or act as one with --session / BATON_SESSION', details: { field: 'id' } });
    expect(ws.head()).toBe(head);
  }, 120_000);
});

describe('the tasks commands read the log once', () => {
  it('task create, own, transition and subagent start: one pass of the tasks fold decides, and answers', async () => {
    const ws = await workspace();
    const S = (await as(ws.dir, undefined, (app) => startSessionEnvelope(app, {}))).session.id;
    const reads = async (body: (app: AppContext) => Promise<{ task?: { id: string }; subagent?: { id: string } }>): Promise<[number, string]> => {
      const app = new CountingContext({
        dir: ws.dir,
        session: S,
        env: { BATON_NOW: T0 },
        output: { mode: 'json', warn: () => undefined },
        names: { dir: '--dir', session: '--session' },
      });
      try {
        const envelope = await body(app);
        return [app.counting?.reads ?? 0, envelope.task?.id ?? envelope.subagent?.id ?? ''];
      } finally {
        await app.close();
      }
    };
    const [created, T] = await reads((app) => createTaskEnvelope(app, { label: 'scan', state: 'running' }));
    expect(created).toBe(1);
    expect((await reads((app) => ownTaskEnvelope(app, { task: T, branch: 'feat/x' })))[0]).toBe(1);
    expect((await reads((app) => transitionTask(app, { task: T, state: 'blocked', reason: 'login expired' })))[0]).toBe(1);
    expect((await reads((app) => startSubagentEnvelope(app, { kind: 'review', root_task: T })))[0]).toBe(1);
  }, 120_000);
});
