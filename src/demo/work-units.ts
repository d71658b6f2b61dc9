import { idIn, type BatonRun } from './coordination.js';

/**
 * An orchestrator drives an initiative of three waves through the `baton` CLI: it plans and
 * launches, two agents claim and checkpoint, one stalls and recovers, a stray edit in the root
 * checkout contaminates a WU and holds every launch until it is cleaned, and the work finishes wave
 * by wave. `orchestrate status` (status.json and the next safe actions) is printed at each step.
 * The clock is fixed per step with BATON_NOW; observations a git probe would make are recorded with
 * `log append` (the demo workspace is not a git repository).
 */
type Show = (cmd: string, r: { stdout: string; stderr: string; code: number }) => void;

const T0 = Date.parse('2026-04-17T09:00:00Z');
const clock = (minutes: number): Record<string, string> => ({ BATON_NOW: new Date(T0 + minutes * 60_000).toISOString() });

type Step = (args: string[], minutes: number, extra?: Record<string, string>) => Promise<string>;

interface DemoSteps {
  step: Step;
  status: (minutes: number) => Promise<string>;
  observe: (type: string, stream: string, data: Record<string, unknown>, minutes: number) => Promise<string>;
  worktree: (wu: string, path: string, present: boolean, minutes: number) => Promise<string>;
}

function demoSteps(baton: BatonRun, show: Show): DemoSteps {
  const step: Step = async (args, minutes, extra = {}) => {
    const r = await baton(args, { ...clock(minutes), ...extra });
    show(args.map((a) => (/^[\w.:/@=,-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' '), r);
    if (r.code !== 0) throw new Error(`demo step failed (exit ${r.code}): baton ${args.join(' ')}\n${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  const status = (minutes: number) => step(['--human', 'orchestrate', 'status', 'INIT-7'], minutes);
  const observe = (type: string, stream: string, data: Record<string, unknown>, minutes: number) =>
    step(['--human', 'log', 'append', '--type', type, '--stream', stream, '--data', JSON.stringify(data)], minutes);
  const worktree = (wu: string, path: string, present: boolean, minutes: number) =>
    observe('observation.worktree', `wu/${wu}`, { wu_id: wu, path, present, branch: null }, minutes);
  return { step, status, observe, worktree };
}

/** The orchestrator defines an initiative with WUs in three logical waves. */
async function defineInitiative({ step }: DemoSteps): Promise<void> {
  await step(['--human', 'initiative', 'create', 'INIT-7', '--title', 'Checkout rewrite', '--lanes', 'Framework: Core,CLI,Docs'], 0);
  await step(
    [
      '--human',
      'wu',
      'create',
      'WU-1',
      '--initiative',
      'INIT-7',
      '--lane',
      'Framework: Core',
      '--title',
      'Payment core',
      '--code-paths',
      'src/core/**',
      '--acceptance',
      'charges are idempotent',
    ],
    0,
  );
  await step(['--human', 'wu', 'create', 'WU-2', '--initiative', 'INIT-7', '--lane', 'Docs', '--title', 'Payment docs', '--code-paths', 'docs/payments'], 0);
  await step(
    [
      '--human',
      'wu',
      'create',
      'WU-3',
      '--initiative',
      'INIT-7',
      '--lane',
      'CLI',
      '--title',
      'pay command',
      '--deps',
      'WU-1',
      '--code-paths',
      'src/cli/pay.ts',
    ],
    0,
  );
  await step(['--human', 'wu', 'create', 'WU-4', '--initiative', 'INIT-7', '--lane', 'Docs', '--title', 'CLI reference', '--deps', 'WU-2,WU-3'], 0);
  await step(['--human', 'orchestrate', 'plan', 'INIT-7'], 0);
}

interface Agents {
  codex: string;
  claude: string;
}

async function launchWaveZero({ step, status, worktree }: DemoSteps): Promise<Agents> {
  // Wave 0 launches: one handoff per eligible WU.
  await step(['--human', 'orchestrate', 'run', 'INIT-7', '--client', 'codex'], 1);
  const codex = idIn(await step(['--human', 'session', 'start', '--agent-identity', 'codex:wu-1', '--client', 'codex'], 2), 'session_');
  const claude = idIn(await step(['--human', 'session', 'start', '--agent-identity', 'claude:wu-2', '--client', 'claude-code'], 2), 'session_');
  await step(['--human', '--session', codex, 'wu', 'claim', 'WU-1'], 3);
  await step(['--human', '--session', claude, 'wu', 'claim', 'WU-2'], 3);
  await worktree('WU-1', 'worktrees/framework-core-wu-1', true, 4);
  await worktree('WU-2', 'worktrees/docs-wu-2', true, 4);
  await step(
    ['--human', '--session', codex, 'wu', 'checkpoint', 'WU-1', '--note', 'ledger schema', '--progress', '40%', '--next-steps', 'idempotency keys'],
    60,
  );
  await status(61);
  return { codex, claude };
}

async function stallAndRecover({ step, status }: DemoSteps, { codex, claude }: Agents): Promise<void> {
  // Five hours later: codex kept checkpointing, claude went quiet — WU-2 is stalled.
  await step(['--human', '--session', codex, 'wu', 'checkpoint', 'WU-1', '--note', 'idempotency keys', '--progress', '80%'], 290);
  await status(300);
  await step(['--human', 'wu', 'explain', 'WU-2'], 300);
  await step(['--human', '--session', claude, 'wu', 'checkpoint', 'WU-2', '--note', 'back: drafting the guide'], 301);
}

async function contaminateAndClean({ observe, status }: DemoSteps, baton: BatonRun, show: Show): Promise<void> {
  // A stray edit in the root checkout under WU-1's code paths: contaminated, launches held.
  await observe('observation.dirty_paths', 'workspace/root', { paths: ['src/core/ledger.ts'] }, 302);
  await status(302);
  const refused = await baton(['--human', 'orchestrate', 'run', 'INIT-7'], clock(302));
  show('--human orchestrate run INIT-7   # refused while contaminated', refused);
  await observe('observation.dirty_paths', 'workspace/root', { paths: [] }, 310);
}

async function finishWaves({ step, status }: DemoSteps, { codex, claude }: Agents, show: Show, dir: string): Promise<void> {
  // Both agents return and finish; wave 1 launches, then wave 2.
  await step(['--human', '--session', codex, 'wu', 'return', 'WU-1', '--note', 'all criteria met'], 320);
  await status(321);
  await step(['--human', '--session', codex, 'wu', 'prep', 'WU-1'], 322);
  await step(['--human', '--session', codex, 'wu', 'done', 'WU-1'], 323);
  await step(['--human', '--session', claude, 'wu', 'return', 'WU-2'], 330);
  await step(['--human', '--session', claude, 'wu', 'done', 'WU-2'], 331);
  await step(['--human', 'orchestrate', 'run', 'INIT-7', '--client', 'claude-code'], 332);
  await step(['--human', '--session', codex, 'wu', 'claim', 'WU-3'], 333);
  await step(['--human', '--session', codex, 'wu', 'done', 'WU-3'], 400);
  await step(['--human', 'orchestrate', 'run', 'INIT-7'], 401);
  await step(['--human', '--session', claude, 'wu', 'claim', 'WU-4'], 402);
  await step(['--human', '--session', claude, 'wu', 'done', 'WU-4'], 450);
  await status(451);
  show(`(bundles in ${dir}/.baton/artifacts/orchestration/INIT-7/)`, { stdout: '', stderr: '', code: 0 });
}

export async function workUnitsDemo(baton: BatonRun, show: Show, dir: string): Promise<void> {
  const steps = demoSteps(baton, show);
  await defineInitiative(steps);
  const agents = await launchWaveZero(steps);
  await stallAndRecover(steps, agents);
  await contaminateAndClean(steps, baton, show);
  await finishWaves(steps, agents, show, dir);
}
