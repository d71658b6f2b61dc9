import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { StoredEvent } from '../../events/envelope.js';
import { OrchestrationSessionEnvelope } from '../../src/app/envelopes/coordination.js';
import {
  OrchestrationResumeEnvelope,
  OrchestrationSessionsEnvelope,
  OrchestrationSessionViewEnvelope,
  OrchestrationStatusEnvelope,
  OrchestrationSubagentEnvelope,
  OrchestrationTaskEnvelope,
  OrchestrationTasksEnvelope,
} from '../../src/app/envelopes/tasks.js';
import { startSessionEnvelope, endSessionEnvelope } from '../../src/app/commands/sessions.js';
import { startSubagentEnvelope } from '../../src/app/commands/subagents.js';
import { createTaskEnvelope, ownTaskEnvelope, transitionTask, type OwnershipInput, type TransitionInput } from '../../src/app/commands/tasks.js';
import { batonIn, ErrorEnvelope, jsonLines, type CliResult } from '../helpers/cli.js';
import { inProcess } from '../helpers/in-process.js';
import { makeTempDir, segmentPaths, sharedSetup, storedEvents } from '../helpers/workspace.js';
import { WIZARD_ENVELOPES } from './wizard-schema.js';

/**
 * Helpers for the tasks.md §12 acceptance scenarios through the built binary, with §12's
 * conventions: `$WS` is a fresh git repository (one commit on `main`) where `baton init` has run,
 * commands run with `$WS` as the current directory, `b` = `baton --dir WS --json`, `@X` = BATON_NOW
 * (T0 unless a scenario says otherwise), `bs` = `b --session $S`.
 *
 * Every envelope a test reads is parsed with the CLI's own strict zod schema (so field access is
 * typed and the printed shape is checked); an error is parsed as the architecture's error envelope.
 */
export const T0 = '2026-05-09T12:00:00.000Z';
export const T0MS = Date.parse(T0);
export const MIN = 60_000;
export const HOUR = 3_600_000;
export const at = (ms: number): string => new Date(T0MS + ms).toISOString();

export type TaskEnvelope = z.output<typeof OrchestrationTaskEnvelope>;
export type Task = TaskEnvelope['task'];
export type TasksEnvelope = z.output<typeof OrchestrationTasksEnvelope>;
export type StatusEnvelope = z.output<typeof OrchestrationStatusEnvelope>;
export type Lsp = StatusEnvelope['lastStoppingPoint'];
export type SessionsEnvelope = z.output<typeof OrchestrationSessionsEnvelope>;
export type SessionViewEnvelope = z.output<typeof OrchestrationSessionViewEnvelope>;
export type SessionStarted = z.output<typeof OrchestrationSessionEnvelope>;
export type ResumeEnvelope = z.output<typeof OrchestrationResumeEnvelope>;
export type SubagentEnvelope = z.output<typeof OrchestrationSubagentEnvelope>;
export {
  OrchestrationResumeEnvelope,
  OrchestrationSessionEnvelope,
  OrchestrationSessionsEnvelope,
  OrchestrationSessionViewEnvelope,
  OrchestrationStatusEnvelope,
  OrchestrationSubagentEnvelope,
  OrchestrationTaskEnvelope,
  OrchestrationTasksEnvelope,
};

export interface CallOptions {
  /** BATON_NOW (default T0). */
  now?: string;
  /** `--session ID` (the `bs` of §12). */
  session?: string;
  env?: Record<string, string | undefined>;
}

export interface Run extends CliResult {
  /** Every JSON line of stdout (lines starting with `{`; a child of `resume --execute` may print other text). */
  lines: unknown[];
}

/** A refused command: its exit code and its error envelope. */
export type Failure = ErrorEnvelope & { exit: number | null };

export interface Ws {
  dir: string;
  /** `baton --dir WS --json [--session S] ARGS…` with BATON_NOW set. */
  run(args: readonly string[], opts?: CallOptions): Promise<Run>;
  /** The command must exit 0; its envelope (last JSON line) parsed with `schema`. */
  ok<S extends z.ZodType>(schema: S, args: readonly string[], opts?: CallOptions): Promise<z.output<S>>;
  /** The command must exit non-zero and print one error envelope. */
  fail(args: readonly string[], opts?: CallOptions): Promise<Failure>;
}

function wizardSchemaOf(envelope: unknown): z.ZodType | undefined {
  if (typeof envelope !== 'object' || envelope === null || !('type' in envelope) || typeof envelope.type !== 'string') return undefined;
  return WIZARD_ENVELOPES[envelope.type];
}

function describeRun(args: readonly string[], r: CliResult): string {
  return `baton ${args.join(' ')} → exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
}

/** Parse `value` with `schema`, throwing with the command's output when it does not match. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, context: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`unexpected envelope: ${parsed.error.message}\n${context}`);
  return parsed.data;
}

/** The `Ws` of a workspace folder that is ready (git repository, `baton init` run), e.g. a copy made with sharedSetup. */
export function wsAt(dir: string): Ws {
  const run: Ws['run'] = async (args, opts = {}) => {
    const r = await batonIn(dir, ['--json', ...(opts.session !== undefined ? ['--session', opts.session] : []), ...args], {
      cwd: dir,
      env: { BATON_NOW: opts.now ?? T0, ...(opts.env ?? {}) },
    });
    return {
      ...r,
      lines: jsonLines(
        r.stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .join('\n'),
      ),
    };
  };
  return {
    dir,
    run,
    async ok(schema, args, opts) {
      const r = await run(args, opts);
      if (r.code !== 0) throw new Error(`expected exit 0: ${describeRun(args, r)}`);
      const last = r.lines.at(-1);
      const parsed = parseWith(schema, last, describeRun(args, r));
      // §10.3's conformance: every parity envelope also parses as the wizard reads it.
      const wizard = wizardSchemaOf(last);
      if (wizard !== undefined) parseWith(wizard, last, `as the wizard reads it: ${describeRun(args, r)}`);
      return parsed;
    },
    async fail(args, opts) {
      const r = await run(args, opts);
      if (r.code === 0) throw new Error(`expected a refusal: ${describeRun(args, r)}`);
      if (r.lines.length !== 1) throw new Error(`expected exactly one error envelope: ${describeRun(args, r)}`);
      return { ...parseWith(ErrorEnvelope, r.lines[0], describeRun(args, r)), exit: r.code };
    },
  };
}

/** §12's `$WS`, built once per test file (git repository with one commit on main, `@T0 baton init`) and copied for each test. */
const initialised = sharedSetup('baton-tasks-', async (dir) => {
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.name=Baton Test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      stdio: 'ignore',
    });
  };
  git('init', '-q', '-b', 'main');
  git('commit', '-q', '--allow-empty', '-m', 'initial');
  const init = await wsAt(dir).run(['init']);
  if (init.code !== 0) throw new Error(`init failed: ${describeRun(['init'], init)}`);
});

/**
 * A workspace at `dir` (made if not given; an empty folder): a git repository with one commit on
 * main where `@T0 baton init` has run — a copy of one built once per test file.
 */
export async function workspace(name = 'baton-tasks-', dir?: string): Promise<Ws> {
  return wsAt((await initialised(dir ?? makeTempDir(name))).dir);
}

/**
 * `workspace()` with `$S` = `@T0 b session start --goal "set up" --branch main` (§12's usual
 * start), built once per test file and copied for each test.
 */
const withSession = sharedSetup('baton-tasks-', async (dir) => {
  await initialised(dir);
  return startSession(wsAt(dir), { goal: 'set up', branch: 'main' });
});

export async function sessionWorkspace(into?: string): Promise<{ ws: Ws; S: string }> {
  const { dir, made } = await withSession(into);
  return { ws: wsAt(dir), S: made };
}

/** `@now b session start [--goal G] [--branch B]` → the session id. */
export async function startSession(ws: Ws, opts: { now?: string; goal?: string; branch?: string } = {}): Promise<string> {
  const args = ['session', 'start', ...(opts.goal !== undefined ? ['--goal', opts.goal] : []), ...(opts.branch !== undefined ? ['--branch', opts.branch] : [])];
  return (await ws.ok(OrchestrationSessionEnvelope, args, { now: opts.now ?? T0 })).session.id;
}

/** `@now bs task create --label L [--state S] [extra…]` → the task id. */
export async function createTask(ws: Ws, session: string, label: string, opts: { now?: string; state?: string; extra?: string[] } = {}): Promise<string> {
  const args = ['task', 'create', '--label', label, ...(opts.state !== undefined ? ['--state', opts.state] : []), ...(opts.extra ?? [])];
  return (await ws.ok(OrchestrationTaskEnvelope, args, { session, now: opts.now ?? T0 })).task.id;
}

/** `baton task transition ID STATE [extra…]`, which must succeed → the task. */
export async function move(ws: Ws, task: string, state: string, opts: CallOptions & { extra?: string[] } = {}): Promise<Task> {
  const { extra = [], ...call } = opts;
  return (await ws.ok(OrchestrationTaskEnvelope, ['task', 'transition', task, state, ...extra], call)).task;
}

/** `baton task transition ID STATE [extra…]`, which must be refused → the failure. */
export function refuseMove(ws: Ws, task: string, state: string, opts: CallOptions & { extra?: string[] } = {}): Promise<Failure> {
  const { extra = [], ...call } = opts;
  return ws.fail(['task', 'transition', task, state, ...extra], call);
}

/** `@now b status` (scoped with `session`) → the envelope. */
export function status(ws: Ws, opts: CallOptions = {}): Promise<StatusEnvelope> {
  return ws.ok(OrchestrationStatusEnvelope, ['status'], opts);
}

/** `b task ID` → the envelope. */
export function showTask(ws: Ws, task: string, opts: CallOptions = {}): Promise<TaskEnvelope> {
  return ws.ok(OrchestrationTaskEnvelope, ['task', task], opts);
}

export const ids = (tasks: readonly { id: string }[]): string[] => tasks.map((t) => t.id);

/** Every byte of the log, for "no event" checks (stronger than comparing `baton log show`). */
export function logBytes(ws: Ws): string {
  return segmentPaths(ws.dir)
    .map((p) => readFileSync(p, 'utf8'))
    .join('');
}

/** The stored events of one type (on one stream), read from the log's segment files as `baton log show --type T [--stream S]` prints them. */
export function eventsOfType(ws: Ws, type: string, stream?: string): StoredEvent[] {
  return storedEvents(ws.dir).filter((e) => e.type === type && (stream === undefined || e.stream === stream));
}

/** Append prepared events in one process, one atomic batch (`log append --events FILE --batch`). */
export async function appendBatch(ws: Ws, lines: { type: string; stream: string; data: unknown }[], session?: string): Promise<void> {
  const file = join(ws.dir, `batch-${Date.now()}-${Math.random().toString(16).slice(2)}.jsonl`);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = await ws.run(['log', 'append', '--events', file, '--batch'], session !== undefined ? { session } : {});
  if (r.code !== 0) throw new Error(`batch append failed: ${r.stdout} ${r.stderr}`);
}

/**
 * §12's setup steps run in this process through the application layer (test/helpers/in-process.ts),
 * for what a scenario needs done but does not test: the same commands as `session start`, `task
 * create`, `task transition`, `task own`, `subagent start` and `session end`, without a
 * `baton` process each. What a scenario tests still runs through the binary (`ws.ok`, `status`, …).
 */
export const setUp = {
  /** `@now b session start [--goal G] [--branch B]` → the session id. */
  async session(ws: Ws, opts: { now?: string; goal?: string; branch?: string } = {}): Promise<string> {
    const { now = T0, ...input } = opts;
    return (await inProcess(ws.dir, { now }, (app) => startSessionEnvelope(app, input))).session.id;
  },
  /** `@now bs task create --label L [--state S] [--parent P]` → the task id. */
  async task(ws: Ws, session: string, label: string, opts: { now?: string; state?: string; parent?: string } = {}): Promise<string> {
    const { now = T0, ...input } = opts;
    return (await inProcess(ws.dir, { now, session }, (app) => createTaskEnvelope(app, { label, ...input }))).task.id;
  },
  /** `baton task transition ID STATE` with the transition's inputs by their domain names → the task. */
  async move(ws: Ws, task: string, state: string, opts: { session?: string; now?: string } & TransitionInput = {}): Promise<Task> {
    const { now = T0, session, ...input } = opts;
    return (await inProcess(ws.dir, { now, session }, (app) => transitionTask(app, { task, state, ...input }))).task;
  },
  /** `bs task own ID (--branch | --worktree | --pr [--pr-state] | --file)`, relative paths from the workspace. */
  async own(ws: Ws, session: string, task: string, ownership: OwnershipInput, now = T0): Promise<void> {
    await inProcess(ws.dir, { now, session }, (app) => ownTaskEnvelope(app, { task, cwd: ws.dir, ...ownership }));
  },
  /** `bs subagent start --kind K --root-task T` → the subagent envelope. */
  subagent(ws: Ws, session: string, kind: string, rootTask: string, now = T0): Promise<SubagentEnvelope> {
    return inProcess(ws.dir, { now, session }, (app) => startSubagentEnvelope(app, { kind, root_task: rootTask }));
  },
  /** `@now b session end S [--status STATUS]` (default succeeded). */
  async endSession(ws: Ws, session: string, opts: { now?: string; status?: string } = {}): Promise<void> {
    await inProcess(ws.dir, { now: opts.now ?? T0 }, (app) => endSessionEnvelope(app, { session_id: session, status: opts.status ?? 'succeeded' }));
  },
};
