import { existsSync, readdirSync } from 'node:fs';
import type { EventCatalog } from '../../events/catalog.js';
import { tasksStateProjection } from '../../projections/tasks/projections.js';
import { initTasks, type TasksState } from '../../projections/tasks/state.js';
import type { ViewContext } from '../../projections/tasks/views.js';
import type { EventStore } from '../store/contract.js';
import { runProjection } from '../store/projection-runner.js';
import { workspaceLayout } from '../store/jsonl/layout.js';

/**
 * What a tasks command needs, built once per command by the CLI (or by a test over any store).
 * `store` is opened lazily: read commands in a workspace without `.baton/` create nothing.
 */
export interface TasksEnv {
  workspace: string;
  now: string;
  /** The envelope actor: acting session, else agent identity, else system. */
  actor: string;
  /** `--session` / `BATON_SESSION`. */
  session: string | undefined;
  /** How the surface names where `session` came from (`--session`, `BATON_SESSION`), for its refusal. */
  sessionName?: string | undefined;
  invocation: readonly string[];
  workspaceFilter: string | undefined;
  catalog: EventCatalog;
  cacheDir: string | undefined;
  store: () => Promise<EventStore>;
  /** False when there is no `.baton/` and no external store: read commands fold an empty log. */
  hasStore: boolean;
}

export function storePathOf(workspace: string): string {
  return workspaceLayout(workspace).log;
}

/** `storeExists` of §10.3: the log directory holds a segment file. */
export function storeExists(workspace: string): boolean {
  const dir = storePathOf(workspace);
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((name) => /^\d+\.jsonl$/.test(name));
}

export function viewContext(env: TasksEnv): ViewContext {
  return { now: env.now, installDir: env.workspace, invocation: env.invocation, workspaceFilter: env.workspaceFilter };
}

/** The fold at the head, with the per-stream versions it saw (the base of every decision). */
export async function loadTasks(env: TasksEnv): Promise<{ state: TasksState; seq: number }> {
  if (!env.hasStore) return { state: initTasks(), seq: 0 };
  const run = await runProjection(await env.store(), tasksStateProjection, {
    catalog: env.catalog,
    now: env.now,
    ...(env.cacheDir !== undefined ? { cacheDir: env.cacheDir } : {}),
  });
  return { state: run.state, seq: run.seq };
}
