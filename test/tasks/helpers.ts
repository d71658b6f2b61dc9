import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { batonIn, jsonLines, type CliResult } from '../helpers/cli.js';
import { makeTempDir, segmentPaths } from '../helpers/workspace.js';

/** Helpers for the tasks.md acceptance scenarios: `b` = `baton --dir WS --json`, `@X` = BATON_NOW. */
export const T0 = '2026-05-09T12:00:00.000Z';
export const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();
export const MIN = 60_000;
export const HOUR = 3_600_000;

export interface Ws {
  dir: string;
  b(args: string[], opts?: { now?: string; session?: string; env?: Record<string, string> }): Promise<CliResult>;
  /** The single JSON envelope (last stdout line) of a command. */
  j(args: string[], opts?: { now?: string; session?: string }): Promise<Record<string, any>>;
}

export async function workspace(name = 'baton-tasks-'): Promise<Ws> {
  const dir = makeTempDir(name);
  const b: Ws['b'] = (args, opts = {}) =>
    batonIn(dir, ['--json', ...(opts.session ? ['--session', opts.session] : []), ...args], {
      cwd: dir,
      env: { BATON_NOW: opts.now ?? T0, ...(opts.env ?? {}) },
    });
  const ws: Ws = {
    dir,
    b,
    async j(args, opts) {
      const r = await b(args, opts);
      const last = jsonLines(r.stdout).at(-1) as Record<string, any> | undefined;
      if (!last) throw new Error(`no output from ${args.join(' ')}: ${r.stderr}`);
      return { ...last, __code: r.code };
    },
  };
  await b(['init']);
  return ws;
}

export async function startSession(ws: Ws, opts: { now?: string; goal?: string; branch?: string } = {}): Promise<string> {
  const args = ['session', 'start', ...(opts.goal !== undefined ? ['--goal', opts.goal] : []), ...(opts.branch !== undefined ? ['--branch', opts.branch] : [])];
  const e = await ws.j(args, { now: opts.now ?? T0 });
  if (e.__code !== 0) throw new Error(`session start failed: ${JSON.stringify(e)}`);
  return e.session.id as string;
}

export async function createTask(ws: Ws, session: string, label: string, opts: { now?: string; state?: string; extra?: string[] } = {}): Promise<string> {
  const e = await ws.j(['task', 'create', '--label', label, ...(opts.state ? ['--state', opts.state] : []), ...(opts.extra ?? [])], { session, now: opts.now ?? T0 });
  if (e.__code !== 0) throw new Error(`task create failed: ${JSON.stringify(e)}`);
  return e.task.id as string;
}

export async function move(ws: Ws, task: string, state: string, opts: { now?: string; session?: string; extra?: string[] } = {}): Promise<Record<string, any>> {
  return ws.j(['task', 'transition', task, state, ...(opts.extra ?? [])], { ...(opts.now ? { now: opts.now } : {}), ...(opts.session ? { session: opts.session } : {}) });
}

/** Every byte of the log, for "no event" checks. */
export function logBytes(ws: Ws): string {
  return segmentPaths(ws.dir)
    .map((p) => readFileSync(p, 'utf8'))
    .join('');
}

/** Append prepared events in one process, one atomic batch (`log append --events FILE --batch`). */
export async function appendBatch(ws: Ws, lines: { type: string; stream: string; data: unknown }[], session?: string): Promise<void> {
  const file = join(ws.dir, `batch-${Date.now()}-${Math.random().toString(16).slice(2)}.jsonl`);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = await ws.b(['log', 'append', '--events', file, '--batch'], session ? { session } : {});
  if (r.code !== 0) throw new Error(`batch append failed: ${r.stdout} ${r.stderr}`);
}
