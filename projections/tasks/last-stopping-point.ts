import { SessionStatus } from '../../events/coordination/vocabulary.js';
import type { Ownership } from '../../events/tasks/ownership.js';
import { orderedOwnership, sameOwnership } from '../../events/tasks/ownership-terms.js';
import { ACTIVE_STATES, CheckpointKind, TaskState } from '../../events/tasks/terms.js';
import { effectiveStatus } from '../coordination/sessions.js';
import type { SessionRecord } from '../coordination/state.js';
import { isAuthProblem } from './auth-rule.js';
import { shellJoin } from '../shell-quote.js';
import type { HeldWorkUnit } from '../work-units/held.js';
import type { TaskRecord, TasksState } from './state.js';
import { wizardCheckpoint, wizardTask, type WizardCheckpoint, type WizardTask } from './wizard-shapes.js';

/**
 * The last stopping point (tasks.md §9): a pure function of the fold, `now`, the workspace path,
 * the resume invocation and an optional scope session. No git call, no file read.
 */
export const NextActionKind = {
  resume: 'resume',
  fix_auth: 'fix_auth',
  await_user_choice: 'await_user_choice',
  await_mcp_action: 'await_mcp_action',
  await_verification: 'await_verification',
  inspect_failure: 'inspect_failure',
  none: 'none',
} as const;
export type NextActionKind = (typeof NextActionKind)[keyof typeof NextActionKind];

export interface NextAction {
  kind: NextActionKind;
  description: string;
  command: string[];
}

export interface LastStoppingPoint {
  generatedAt: number;
  currentSessionId: string | null;
  currentGoal: string | null;
  currentBranch: string | null;
  currentWorktree: string | null;
  activeTasks: WizardTask[];
  queuedTasks: WizardTask[];
  stoppedTasks: WizardTask[];
  recentlyCompletedTasks: WizardTask[];
  relevantOwnership: Ownership[];
  pendingChoices: WizardCheckpoint[];
  pendingMcpActions: WizardCheckpoint[];
  pendingManualVerifications: WizardCheckpoint[];
  nextAction: NextAction;
  resumeCommand: string;
}

export interface LspInputs {
  now: string;
  installDir: string;
  /** `resume.invocation`, default `["baton"]`. */
  invocation: readonly string[];
  /** A scope session id known to the fold, or undefined. */
  scope?: string | undefined;
  /** Each session's held work units (projections/work-units/held.ts), when the work-unit fold was read. */
  held?: ReadonlyMap<string, readonly HeldWorkUnit[]> | undefined;
}

export const RECENT_WINDOW_MS = 86_400_000;
const STOPPED: readonly TaskState[] = [TaskState.failed, TaskState.cancelled, TaskState.superseded];

const byUpdatedDesc = (a: TaskRecord, b: TaskRecord): number => Date.parse(b.updated_at) - Date.parse(a.updated_at) || b.last_seq - a.last_seq;
const byCreatedAsc = (a: TaskRecord, b: TaskRecord): number => Date.parse(a.created_at) - Date.parse(b.created_at) || a.last_seq - b.last_seq;

/** §9.2: the scope session, else the live session with the greatest createdAt (ties: later start). */
export function currentSession(state: TasksState, now: string, scope: string | undefined): SessionRecord | null {
  if (scope !== undefined) return state.coordination.sessions.get(scope) ?? null;
  let best: SessionRecord | null = null;
  for (const s of state.coordination.sessions.values()) {
    if (effectiveStatus(s, now) !== SessionStatus.active) continue;
    if (best === null) best = s;
    else {
      const d = Date.parse(s.created_at) - Date.parse(best.created_at);
      if (d > 0 || (d === 0 && s.start_seq > best.start_seq)) best = s;
    }
  }
  return best;
}

/** The four buckets of §9.3, each in its listing order. */
interface TaskBuckets {
  active: TaskRecord[];
  queued: TaskRecord[];
  stopped: TaskRecord[];
  completed: TaskRecord[];
}

/** What the next action reads besides the tasks: the fold, the clock and the command prefix. */
interface CommandContext {
  state: TasksState;
  now: string;
  /** The resume invocation. */
  cli: string[];
  /** `--dir <installDir>`. */
  dir: string[];
  held: LspInputs['held'];
}

export function lastStoppingPoint(state: TasksState, inputs: LspInputs): LastStoppingPoint {
  const { now, installDir, invocation, scope } = inputs;
  const nowMs = Date.parse(now);
  const ctx: CommandContext = { state, now, cli: [...invocation], dir: ['--dir', installDir], held: inputs.held };
  const buckets = taskBuckets(state, scope, nowMs);
  const { active, queued, stopped, completed } = buckets;

  const waiting = active.filter((t) => t.state === TaskState.waiting_for_user);
  const checkpoints = waiting.flatMap((t) => (t.waiting_for ? [t.waiting_for] : []));
  const ofKinds = (...kinds: string[]): WizardCheckpoint[] => checkpoints.filter((c) => kinds.includes(c.kind)).map(wizardCheckpoint);

  const current = currentSession(state, now, scope);
  const next = nextActionOf(ctx, buckets, waiting, current);

  return {
    generatedAt: nowMs,
    currentSessionId: current?.session_id ?? null,
    currentGoal: current?.goal ?? null,
    currentBranch: current?.branch ?? null,
    currentWorktree: current?.worktree ?? null,
    activeTasks: active.map(wizardTask),
    queuedTasks: queued.map(wizardTask),
    stoppedTasks: stopped.map(wizardTask),
    recentlyCompletedTasks: completed.map(wizardTask),
    relevantOwnership: relevantOwnership(buckets),
    pendingChoices: ofKinds(CheckpointKind.user_choice, CheckpointKind.event_plan_confirm),
    pendingMcpActions: ofKinds(CheckpointKind.mcp_install, CheckpointKind.mcp_action),
    pendingManualVerifications: ofKinds(CheckpointKind.manual_verification),
    nextAction: next,
    resumeCommand: shellJoin(next.command),
  };
}

/** §9.3: the tasks considered (the scope session's, else every session's), by bucket. */
function taskBuckets(state: TasksState, scope: string | undefined, nowMs: number): TaskBuckets {
  const considered = [...state.tasks.values()].filter((t) => scope === undefined || t.session_id === scope);
  const recent = (t: TaskRecord): boolean => Date.parse(t.updated_at) >= nowMs - RECENT_WINDOW_MS;
  return {
    active: considered.filter((t) => ACTIVE_STATES.includes(t.state)).sort(byUpdatedDesc),
    queued: considered.filter((t) => t.state === TaskState.queued).sort(byCreatedAsc),
    stopped: considered.filter((t) => STOPPED.includes(t.state) && recent(t)).sort(byUpdatedDesc),
    completed: considered.filter((t) => t.state === TaskState.completed && recent(t)).sort(byUpdatedDesc),
  };
}

/** §9.4: the ownership of the listed tasks, bucket by bucket, each duplicate kept once (first seen). */
function relevantOwnership(buckets: TaskBuckets): Ownership[] {
  const ownership: Ownership[] = [];
  for (const t of [...buckets.active, ...buckets.queued, ...buckets.stopped, ...buckets.completed]) {
    for (const o of t.ownership) if (!ownership.some((seen) => sameOwnership(seen, o))) ownership.push(orderedOwnership(o));
  }
  return ownership;
}

/** A task's session's effective status now; a session the fold does not know counts as abandoned. */
function sessionStatusOf(ctx: CommandContext, id: string): SessionStatus {
  const s = ctx.state.coordination.sessions.get(id);
  return s ? effectiveStatus(s, ctx.now) : SessionStatus.abandoned;
}

function isLive(ctx: CommandContext, t: TaskRecord): boolean {
  return sessionStatusOf(ctx, t.session_id) === SessionStatus.active;
}

function taskCommand(ctx: CommandContext, t: TaskRecord): string[] {
  return [...ctx.cli, 'task', t.id, ...ctx.dir];
}

/** §9.6: the first rule that matches. */
function nextActionOf(ctx: CommandContext, buckets: TaskBuckets, waiting: TaskRecord[], current: SessionRecord | null): NextAction {
  const { active, queued, stopped } = buckets;
  const { cli, dir } = ctx;
  const w = waiting[0];
  if (w) return waitingAction(ctx, w);
  const blocked = active.filter((t) => t.state === TaskState.blocked);
  const auth = blocked.find((t) => t.blocked_reason !== null && isAuthProblem(t.blocked_reason));
  if (auth) return { kind: NextActionKind.fix_auth, description: `Blocked: ${auth.blocked_reason}. Sign in again to resume.`, command: taskCommand(ctx, auth) };
  const b = blocked[0];
  if (b) {
    return {
      kind: NextActionKind.inspect_failure,
      description: `Blocked: ${b.blocked_reason ?? b.label}. Inspect the task and address the blocker.`,
      command: taskCommand(ctx, b),
    };
  }
  if (active.some((t) => t.state === TaskState.running && isLive(ctx, t))) {
    return { kind: NextActionKind.resume, description: 'A task is still running. Re-attach or wait for completion.', command: [...cli, 'status', ...dir] };
  }
  const orphan = [...active.filter((t) => t.state === TaskState.running), ...queued].filter((t) => !isLive(ctx, t)).sort(byUpdatedDesc)[0];
  if (orphan) {
    return {
      kind: NextActionKind.inspect_failure,
      description: `Task ${orphan.label} is ${orphan.state} but its session ${orphan.session_id} is ${sessionStatusOf(ctx, orphan.session_id)}. Inspect it, then cancel or supersede it.`,
      command: taskCommand(ctx, orphan),
    };
  }
  const q = queued.find((t) => isLive(ctx, t));
  if (q) return { kind: NextActionKind.resume, description: `A task is queued and has not started: ${q.label}.`, command: taskCommand(ctx, q) };
  if (current && effectiveStatus(current, ctx.now) === SessionStatus.active) {
    // A session holding work units goes on with the first of them, where its last checkpoint left it.
    const held = heldNextAction(ctx.held?.get(current.session_id) ?? [], { cli, dir, session: current.session_id });
    if (held !== null) return { kind: NextActionKind.resume, ...held };
    return {
      kind: NextActionKind.resume,
      description: 'Session is active but no task is running. Re-run the agent to continue.',
      command: [...cli, 'session', current.session_id, ...dir],
    };
  }
  const stop = stopped[0];
  if (stop) {
    return {
      kind: NextActionKind.inspect_failure,
      description: `Most recent stop: ${stop.label} (${stop.state}). Inspect with \`${shellJoin([...cli, 'task', stop.id])}\`.`,
      command: taskCommand(ctx, stop),
    };
  }
  return { kind: NextActionKind.none, description: 'No active or recently stopped tasks. Nothing to resume.', command: [...cli, 'status', ...dir] };
}

/** §9.6 rule 1: the first waiting task, by its checkpoint's kind (S: the summary, else the label). */
function waitingAction(ctx: CommandContext, w: TaskRecord): NextAction {
  const s = w.waiting_for?.summary ? w.waiting_for.summary : w.label;
  const kind = w.waiting_for?.kind;
  if (kind === CheckpointKind.mcp_install || kind === CheckpointKind.mcp_action) {
    return { kind: NextActionKind.await_mcp_action, description: `A task is waiting for an MCP action: ${s}.`, command: taskCommand(ctx, w) };
  }
  if (kind === CheckpointKind.manual_verification) {
    return { kind: NextActionKind.await_verification, description: `A task is waiting for manual verification: ${s}.`, command: taskCommand(ctx, w) };
  }
  return { kind: NextActionKind.await_user_choice, description: `A task is waiting for user input: ${s}.`, command: taskCommand(ctx, w) };
}

/**
 * The last stopping point of a session that holds work units (work-units.md §3.3): which WU to go
 * on with, its last checkpoint and next steps, and the exact commands to go on. A function of the
 * held WUs (projections/work-units/held.ts), the session and the resume invocation.
 */
interface HeldCommands {
  /** The resume invocation, e.g. `["baton"]`. */
  cli: readonly string[];
  /** `--dir <installDir>`. */
  dir: readonly string[];
  session: string;
}

export interface HeldWorkUnitView extends Omit<HeldWorkUnit, 'last_seq'> {
  /** What to run next, in order, each with why. */
  commands: { command: string; why: string }[];
}

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function commandsOf(held: Pick<HeldWorkUnit, 'wu_id' | 'status'>, c: HeldCommands): { argv: string[]; why: string }[] {
  const as = [...c.cli, '--session', c.session, 'wu'];
  const id = held.wu_id;
  const checkpoint = {
    argv: [...as, 'checkpoint', id, '--note', '<what changed>', '--next-steps', '<what comes next>', ...c.dir],
    why: 'record progress (the next session reads it)',
  };
  const done = { argv: [...as, 'done', id, ...c.dir], why: 'finish it (the done stamp)' };
  const explain = { argv: [...c.cli, 'wu', 'explain', id, ...c.dir], why: 'see why it is in its state, with the evidence' };
  switch (held.status) {
    case 'blocked':
      return [{ argv: [...as, 'unblock', id, ...c.dir], why: 'when the blocker is gone' }, checkpoint, explain];
    case 'returned':
      return [{ argv: [...c.cli, 'wu', 'prep', id, ...c.dir], why: 'check it is ready to finish' }, done, explain];
    default:
      return [checkpoint, done, explain];
  }
}

/** The held WUs as `status` lists them, each with its commands (the invocation and `--dir` as the resume command's). */
export function heldWorkUnitsView(
  held: readonly HeldWorkUnit[],
  inputs: Pick<LspInputs, 'invocation' | 'installDir'> & { session: string },
): HeldWorkUnitView[] {
  const c: HeldCommands = { cli: inputs.invocation, dir: ['--dir', inputs.installDir], session: inputs.session };
  return held.map(({ last_seq: _seq, ...wu }) => ({ ...wu, commands: commandsOf(wu, c).map((x) => ({ command: shellJoin(x.argv), why: x.why })) }));
}

/** The next action when the session's first held WU is the work to go on with: show it, then the words of where it stopped. */
function heldNextAction(held: readonly HeldWorkUnit[], c: HeldCommands): { description: string; command: string[] } | null {
  const first = held[0];
  if (first === undefined) return null;
  const name = `${first.wu_id} (${oneLine(first.title, 80)})`;
  const more = held.length > 1 ? ` (+${held.length - 1} more held work unit${held.length > 2 ? 's' : ''})` : '';
  const cp = first.last_checkpoint;
  let description: string;
  if (first.status === 'blocked')
    description = `${name} is blocked${first.blocked_reason ? `: ${oneLine(first.blocked_reason, 200)}` : ''}. Unblock it when the blocker is gone.`;
  else if (first.status === 'returned') description = `${name} was returned; finish it with \`wu prep\`, then \`wu done\`.`;
  else if (cp === null) description = `Continue ${name}: claimed, no checkpoint yet.`;
  else description = `Continue ${name}: last checkpoint "${oneLine(cp.note, 200)}"${cp.next_steps ? `; next steps: ${oneLine(cp.next_steps, 200)}` : ''}.`;
  return { description: description + more, command: [...c.cli, 'wu', 'show', first.wu_id, ...c.dir] };
}
