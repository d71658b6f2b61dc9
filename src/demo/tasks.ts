import { idIn, type BatonRun } from './coordination.js';

/**
 * The tasks part of the demo (tasks.md), the last one: an orchestrator session breaks a goal into
 * tasks, hands them to subagents, two finish (one after the user confirmed a plan), an illegal move
 * is refused, and the instrumentation task is left waiting for a manual verification when the
 * orchestrator's process dies — no `session end`, no more heartbeats. Five hours later (past the
 * session TTL) a returning agent lists the sessions (the orchestrator's is abandoned) and the tasks,
 * and asks `baton status`, which says exactly what to do next and how to resume. The demo ends with
 * that answer.
 *
 * `baton` runs the built binary (arguments after `--dir`), `show` prints a step, `narrate` a line
 * of the story. The clock of each step is `start` plus its minute, fixed with BATON_NOW.
 */
type Result = Awaited<ReturnType<BatonRun>>;
type Show = (cmd: string, r: Result) => void;

/** Exit code of a refused move (architecture.md): the demo shows one on purpose. */
const REFUSED = 2;
export const TASKS_DEMO_START = '2026-05-09T09:00:00.000Z';
/** When the returning agent arrives: past the orchestrator's 4-hour TTL. */
export const RETURN_AFTER_MINUTES = 5 * 60;

function quoted(args: readonly string[]): string {
  return args.map((a) => (/^[\w.:/@=,-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export interface TasksDemoIds {
  session: string;
  root: string;
  detect: string;
  plan: string;
  instrument: string;
  dashboard: string;
}

type Step = (args: string[], minutes: number, expected?: number) => Promise<string>;

function demoStep(baton: BatonRun, show: Show, start: number): Step {
  const clock = (minutes: number): Record<string, string> => ({ BATON_NOW: new Date(start + minutes * 60_000).toISOString() });
  return async (args, minutes, expected = 0) => {
    const r = await baton(args, clock(minutes));
    show(quoted(args), r);
    if (r.code !== expected) throw new Error(`demo step failed (exit ${r.code}, expected ${expected}): baton ${quoted(args)}\n${r.stdout}${r.stderr}`);
    return r.stdout;
  };
}

async function startOrchestrator(step: Step): Promise<string> {
  const started = await step(
    [
      '--human',
      'session',
      'start',
      '--agent-identity',
      'claude:orchestrator:demo',
      '--role',
      'orchestrator',
      '--goal',
      'Instrument checkout analytics',
      '--branch',
      'feat/checkout-analytics',
    ],
    0,
  );
  return idIn(started, 'session_');
}

/** The orchestrator's moves, each a `baton` call as its session. */
interface Orchestrator {
  step: Step;
  as: string[];
  create: (minutes: number, label: string, ...flags: string[]) => Promise<string>;
  move: (minutes: number, task: string, state: string, ...flags: string[]) => Promise<string>;
  subagent: (minutes: number, kind: string, root: string) => Promise<string>;
  finish: (minutes: number, id: string) => Promise<string>;
}

function orchestrator(step: Step, session: string): Orchestrator {
  const as = ['--human', '--session', session];
  return {
    step,
    as,
    create: async (minutes, label, ...flags) => idIn(await step([...as, 'task', 'create', '--label', label, ...flags], minutes), 'task_'),
    move: (minutes, task, state, ...flags) => step([...as, 'task', 'transition', task, state, ...flags], minutes),
    subagent: async (minutes, kind, root) => idIn(await step([...as, 'subagent', 'start', '--kind', kind, '--root-task', root], minutes), 'subagent_'),
    finish: (minutes, id) => step([...as, 'subagent', 'finish', id], minutes),
  };
}

type TaskIds = Omit<TasksDemoIds, 'session'>;

async function createTasks({ create }: Orchestrator): Promise<TaskIds> {
  const root = await create(1, 'Instrument checkout analytics', '--state', 'running', '--active-form', 'Instrumenting checkout analytics');
  const detect = await create(1, 'Detect the framework', '--parent', root, '--subagent-kind', 'framework_detection', '--state', 'running');
  const plan = await create(1, 'Plan the event taxonomy', '--parent', root, '--subagent-kind', 'taxonomy');
  const instrument = await create(1, 'Add tracking calls to checkout', '--parent', root, '--subagent-kind', 'instrumentation');
  const dashboard = await create(1, 'Build the checkout dashboard', '--parent', root, '--subagent-kind', 'dashboard_creation');
  return { root, detect, plan, instrument, dashboard };
}

async function detectAndPlan({ move, subagent, finish }: Orchestrator, { detect, plan }: TaskIds): Promise<void> {
  const detector = await subagent(2, 'framework_detection', detect);
  await move(6, detect, 'completed', '--summary', 'Next.js 14 (app router), pnpm');
  await finish(6, detector);
  await move(7, plan, 'running');
  const taxonomist = await subagent(7, 'taxonomy', plan);
  await move(
    12,
    plan,
    'waiting_for_user',
    '--checkpoint-id',
    'events-json',
    '--checkpoint-kind',
    'event_plan_confirm',
    '--checkpoint-summary',
    'review the proposed events.json (12 events)',
  );
  await move(20, plan, 'running', '--reason', 'the user approved events.json');
  await move(21, plan, 'completed', '--summary', '12 events approved');
  await finish(21, taxonomist);
}

async function instrumentUntilVerification({ step, as, move, subagent }: Orchestrator, { instrument }: TaskIds): Promise<void> {
  await move(23, instrument, 'running');
  await subagent(23, 'instrumentation', instrument);
  await step([...as, 'task', 'own', instrument, '--branch', 'feat/checkout-analytics'], 23);
  await step([...as, 'task', 'own', instrument, '--pr', 'https://github.com/acme/shop/pull/42', '--pr-state', 'open'], 40);
  await move(
    41,
    instrument,
    'waiting_for_user',
    '--checkpoint-id',
    'verify-checkout',
    '--checkpoint-kind',
    'manual_verification',
    '--checkpoint-summary',
    'click through checkout on the preview deploy and confirm the 12 events arrive',
  );
}

export async function tasksDemo(baton: BatonRun, show: Show, options: { start?: string; narrate?: (text: string) => void } = {}): Promise<TasksDemoIds> {
  const narrate = options.narrate ?? (() => undefined);
  const step = demoStep(baton, show, Date.parse(options.start ?? TASKS_DEMO_START));

  narrate('An orchestrator session breaks "instrument checkout analytics" into tasks.');
  const session = await startOrchestrator(step);
  const o = orchestrator(step, session);
  const tasks = await createTasks(o);

  narrate('Subagents do the work; the taxonomy waits for the user to confirm the plan.');
  await detectAndPlan(o, tasks);

  narrate('The dashboard cannot be completed before it has run: the task machine refuses, nothing is appended.');
  await step(['--human', '--session', session, 'task', 'transition', tasks.dashboard, 'completed'], 22, REFUSED);

  narrate('The instrumentation subagent opens a pull request and stops for a manual check.');
  await instrumentUntilVerification(o, tasks);

  narrate(
    'The orchestrator crashes here: no `session end`, no more heartbeats. Five hours later a new agent arrives knowing only the workspace: its sessions, its tasks, and what to do next.',
  );
  const back = RETURN_AFTER_MINUTES;
  await step(['--human', 'sessions'], back);
  await step(['--human', 'tasks'], back);
  await step(['--human', 'status'], back);
  return { session, ...tasks };
}
