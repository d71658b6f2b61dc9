import { appendFileSync } from 'node:fs';
import { ClientType, EndStatus, ReceiptVia, SessionStatus } from '../../../events/coordination/vocabulary.js';
import { readerIdentityOf } from '../../../projections/coordination/sessions.js';
import { initiativeSummaries } from '../../../projections/tasks/initiatives.js';
import { tasksStateProjection } from '../../../projections/tasks/projections.js';
import type { TasksState } from '../../../projections/tasks/state.js';
import { statusEnvelope } from '../../../projections/tasks/views.js';
import { workUnitsStateProjection } from '../../../projections/work-units/fold.js';
import { heldWorkUnits } from '../../../projections/work-units/held.js';
import { actingAs } from '../../app/acting-as.js';
import { endSessionEnvelope, heartbeatSessionEnvelope } from '../../app/commands/sessions.js';
import { finishSubagentEnvelope, startSubagentEnvelope } from '../../app/commands/subagents.js';
import { createTaskEnvelope } from '../../app/commands/tasks.js';
import type { AppContext } from '../../app/context.js';
import { tasksEnv } from '../../app/tasks-env.js';
import { loadState, type CoordinationEnv } from '../../coordination/env.js';
import { recordReceipts } from '../../coordination/record-receipts.js';
import { startSession } from '../../coordination/sessions.js';
import { readFilter } from '../../coordination/settings-values.js';
import { ErrorCode, invalidInput, isBatonError } from '../../errors.js';
import { runProjections } from '../../store/projection-runner.js';
import { loadTasks, storeExists, storePathOf, viewContext, type TasksEnv } from '../../tasks/env.js';
import { loadWorkUnitsConfig } from '../../config/work-units.js';
import { readConfigText } from '../../workspace.js';
import { sessionBrief, unreadFor } from './brief.js';
import type { ClaudeHookInput } from './hook-input.js';
import { mappedSession } from './session-map.js';
import { actingIn } from '../../coordination/acting.js';
import type { CoordinationState } from '../../../projections/coordination/state.js';

/**
 * The hook events that write more than receipts (start, heartbeat, end, subagents) and the brief.
 * Loaded only for them: the per-tool-call path (hook-claude-code.ts) stays small.
 */
export interface HookAnswer {
  /** The text for `hookSpecificOutput.additionalContext`; undefined: the hook says nothing. */
  context: string | undefined;
  /** Runs after the answer is printed (printing first: a crash between repeats, never loses). */
  after?: () => Promise<void>;
}

type Acting = CoordinationEnv & { workspace: string };

/**
 * The Baton session of this Claude session, started if it is not yet (on any event: hooks may be
 * installed mid-session), heartbeated when `heartbeat` is asked (`session heartbeat`, the session
 * saying it is alive). A concurrent hook that started it first is no error: both then name the same
 * derived id, which is why the start is the domain's (`session start` draws a fresh id).
 */
export async function ensureSession(app: AppContext, env: Acting, input: ClaudeHookInput, heartbeat: boolean): Promise<string> {
  const { state } = await loadState(env);
  const mapped = mappedSession(state, input.session_id);
  if (mapped.record === undefined) {
    try {
      await startSession({ ...env, session: undefined }, { session_id: mapped.session_id, client_type: ClientType.claude_code });
    } catch (error) {
      if (!(isBatonError(error) && error.code === ErrorCode.CONFLICT)) throw error;
    }
  } else if (heartbeat) {
    await heartbeatSessionEnvelope(app, { session_id: mapped.session_id });
  }
  return mapped.session_id;
}

async function actingTasksEnv(ctx: AppContext, sessionId: string): Promise<TasksEnv> {
  return { ...(await tasksEnv(ctx)), session: sessionId, actor: sessionId };
}

/** SessionStart (and the first hook of a session Baton had not seen): start or continue, then brief. */
export async function sessionStartAnswer(ctx: AppContext, env: Acting, input: ClaudeHookInput): Promise<HookAnswer> {
  const sessionId = await ensureSession(ctx, env, input, true);
  const tenv = await actingTasksEnv(ctx, sessionId);
  const [tasks, workUnits] = await runProjections(await tenv.store(), [tasksStateProjection, workUnitsStateProjection] as const, {
    catalog: tenv.catalog,
    now: tenv.now,
    ...(tenv.cacheDir !== undefined ? { cacheDir: tenv.cacheDir } : {}),
  });
  const config = await loadWorkUnitsConfig(readConfigText(env.workspace));
  const status = statusEnvelope(tasks.state, viewContext(tenv), {
    storePath: storePathOf(env.workspace),
    storeExists: storeExists(env.workspace),
    scope: sessionId,
    acting: sessionId,
    initiatives: initiativeSummaries(workUnits.state, config, env.now),
    held: heldWorkUnits(workUnits.state),
  });
  const session = tasks.state.coordination.sessions.get(sessionId)!;
  const reader = readerIdentityOf(session);
  const unread = unreadFor(tasks.state, reader, readFilter(env.settings));
  const brief = sessionBrief({ sessionId, source: input.source, tasks: tasks.state, status, unread, now: env.now });
  // Claude Code runs later Bash commands with what a SessionStart hook writes to CLAUDE_ENV_FILE.
  const envFile = ctx.env['CLAUDE_ENV_FILE'];
  if (envFile) appendFileSync(envFile, `export BATON_SESSION=${sessionId}\n`);
  return {
    context: brief.text,
    after: async () => {
      if (brief.shown.length === 0) return;
      // What the brief showed counts as delivered: the next tool call does not repeat it.
      const shown = { signalIds: brief.shown.map((r) => r.data.signal_id), reader, session: sessionId, via: ReceiptVia.hook };
      await recordReceipts(
        { store: env.store, catalog: env.catalog, actor: sessionId, now: env.now, acting: actingIn({ session: sessionId }, (s: CoordinationState) => s) },
        tasks.state.coordination,
        shown,
      );
    },
  };
}

/** A subagent kind from Claude Code's agent type (`general-purpose`, `plugin:reviewer`, …). */
export function subagentKind(agentType: string | undefined): string {
  const kind = (agentType ?? 'subagent')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .slice(0, 64);
  return kind === '' ? 'subagent' : kind;
}

/** The task subagents hang from: the session's most recently updated running task, else one made for it (`task create`). */
async function rootTask(acting: AppContext, state: TasksState, sessionId: string): Promise<string> {
  const running = [...state.tasks.values()].filter((t) => t.session_id === sessionId && t.state === 'running').sort((a, b) => b.last_seq - a.last_seq)[0];
  if (running) return running.id;
  const display = state.coordination.sessions.get(sessionId)?.display_name ?? sessionId;
  const created = await createTaskEnvelope(acting, {
    label: `Claude Code session of ${display}`,
    state: 'running',
    idempotency_key: `claude-code-root:${sessionId}`,
  });
  return created.task.id;
}

const subagentKey = (input: ClaudeHookInput): string => {
  if (input.agent_id === undefined || input.agent_id === '') throw invalidInput("must be the subagent's id", 'stdin.agent_id');
  return `claude-code:${input.agent_id}`.slice(0, 128);
};

/** The subagent of this agent_id (`subagent start` as the session, rooted at its task): once per agent_id. */
async function startAgent(acting: AppContext, state: TasksState, sessionId: string, input: ClaudeHookInput, key: string): Promise<string> {
  const root = await rootTask(acting, state, sessionId);
  return (await startSubagentEnvelope(acting, { kind: subagentKind(input.agent_type), root_task: root, idempotency_key: key })).subagent.id;
}

/** SubagentStart: `subagent.started` on the session's task (once per agent_id). */
export async function subagentStartAnswer(ctx: AppContext, env: Acting, input: ClaudeHookInput): Promise<HookAnswer> {
  const key = subagentKey(input);
  const sessionId = await ensureSession(ctx, env, input, false);
  const { state } = await loadTasks(await actingTasksEnv(ctx, sessionId));
  await startAgent(actingAs(ctx, sessionId), state, sessionId, input, key);
  return { context: undefined };
}

/** SubagentStop: `subagent.finished` (a stop whose start Baton missed records both). */
export async function subagentStopAnswer(ctx: AppContext, env: Acting, input: ClaudeHookInput): Promise<HookAnswer> {
  const key = subagentKey(input);
  const sessionId = await ensureSession(ctx, env, input, false);
  const { state } = await loadTasks(await actingTasksEnv(ctx, sessionId));
  const acting = actingAs(ctx, sessionId);
  const id =
    [...state.subagents.values()].find((s) => s.idempotency_key === key && s.session_id === sessionId)?.id ??
    (await startAgent(acting, state, sessionId, input, key));
  await finishSubagentEnvelope(acting, { subagent: id });
  return { context: undefined };
}

/** Stop: the agent finished a turn — a heartbeat keeps its session live. */
export async function stopAnswer(ctx: AppContext, env: Acting, input: ClaudeHookInput): Promise<HookAnswer> {
  await ensureSession(ctx, env, input, true);
  return { context: undefined };
}

/** SessionEnd: the Baton session ends (succeeded), recorded as itself; a later resume starts the next generation. */
export async function sessionEndAnswer(ctx: AppContext, env: Acting, input: ClaudeHookInput): Promise<HookAnswer> {
  const { state } = await loadState(env);
  const mapped = mappedSession(state, input.session_id);
  if (mapped.record !== undefined && mapped.record.stored_status === SessionStatus.active) {
    await endSessionEnvelope(actingAs(ctx, mapped.session_id), { session_id: mapped.session_id, status: EndStatus.succeeded });
  }
  return { context: undefined };
}
