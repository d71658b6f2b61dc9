import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatonRun } from './coordination.js';

/**
 * The phase-gate part of the demo: a team flow through one failed verification, a second iteration
 * and completion, then an update after the end (refused), and the state file Agent Flow's hooks
 * read. `baton` runs the built binary in `dir` (args after `--dir`), `show` prints a step.
 */
type Run = Awaited<ReturnType<BatonRun>>;

const TEAMS = { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };
const GROUP = ['--parallel-group', 'review_verification'];
/** Exit code of a refused move (architecture.md): the demo shows one on purpose. */
const REFUSED = 2;

function quoted(args: readonly string[]): string {
  return args.map((a) => (/^[\w.:/@=-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export async function flowDemo(baton: BatonRun, show: (cmd: string, r: Run) => void, dir: string): Promise<void> {
  const step = async (args: string[], expected = 0): Promise<Run> => {
    const full = ['--human', ...args];
    const result = await baton(full, TEAMS);
    show(quoted(full), result);
    if (result.code !== expected)
      throw new Error(`demo step failed (exit ${result.code}, expected ${expected}): baton ${quoted(full)}\n${result.stdout}${result.stderr}`);
    return result;
  };
  await step(['flow', 'init', '--team', '--max-iterations', '3', 'Add user authentication with JWT tokens']);
  await step(['flow', 'update', '--phase', 'planning', '--gate-result', 'passed', '--agent', 'Riko', '--message', 'Found 5 files']);
  await step(['flow', 'update', '--phase', 'implementation', '--gate-result', 'passed', '--agent', 'Senku', '--message', 'Plan created with 5 steps']);
  for (const verified of [false, true]) {
    // Entering the group starts it afresh: both teammates are pending again in iteration 2.
    await step(['flow', 'update', '--phase', 'review_verification', '--gate-result', 'passed', '--agent', 'Loid']);
    // Lawliet and Alphonse report from two processes at once; both results land (retry on conflict).
    await Promise.all([
      step(['flow', 'update', ...GROUP, '--teammate', 'review', '--gate-result', 'passed', '--message', 'APPROVED']),
      step([
        'flow',
        'update',
        ...GROUP,
        '--teammate',
        'verification',
        '--gate-result',
        verified ? 'passed' : 'failed',
        '--message',
        verified ? 'VERIFIED' : 'FAILED: 3 tests failing',
      ]),
    ]);
    // A failing merge runs the loop: iteration 2, back to implementation.
    await step(['flow', 'merge']);
    await step(['flow', 'status']);
  }
  await step(['flow', 'update', '--phase', 'complete', '--gate-result', 'passed', '--agent', 'Orchestrator', '--message', 'All phases completed successfully']);
  await step(['flow', 'update', '--phase', 'review', '--gate-result', 'passed'], REFUSED);
  const file = join('.claude', 'team-orchestration.local.md');
  show(`cat ${file}`, { stdout: readFileSync(join(dir, file), 'utf8'), stderr: '', code: 0 });
}
