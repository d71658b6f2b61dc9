type Run = { stdout: string; stderr: string; code: number };

/**
 * The phase-gate part of the demo: a team flow through one failed verification, a second iteration
 * and completion, showing the state file at the end. `baton` runs the built binary in `dir`.
 */
export async function flowDemo(baton: (args: string[], env?: Record<string, string>) => Promise<Run>, show: (cmd: string, r: Run) => void, dir: string): Promise<void> {
  const teams = { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };
  const step = async (args: string[], env: Record<string, string> = {}): Promise<Run> => {
    const result = await baton(['--human', ...args], { ...teams, ...env });
    show(args.join(' '), result);
    return result;
  };
  await step(['flow', 'init', '--team', '--max-iterations', '3', 'Add user authentication with JWT tokens']);
  await step(['flow', 'update', '--phase', 'planning', '--gate-result', 'passed', '--agent', 'Riko', '--message', 'Found 5 files']);
  await step(['flow', 'update', '--phase', 'implementation', '--gate-result', 'passed', '--agent', 'Senku', '--message', 'Plan created']);
  for (const iteration of [1, 2]) {
    await step(['flow', 'update', '--phase', 'review_verification', '--gate-result', 'passed', '--agent', 'Loid']);
    // Lawliet and Alphonse report from two processes at once; both results land.
    await Promise.all([
      step(['flow', 'update', '--parallel-group', 'review_verification', '--teammate', 'review', '--gate-result', 'passed', '--message', 'APPROVED']),
      step(['flow', 'update', '--parallel-group', 'review_verification', '--teammate', 'verification', '--gate-result', iteration === 1 ? 'failed' : 'passed', '--message', iteration === 1 ? 'FAILED: 3 tests failing' : 'VERIFIED']),
    ]);
    await step(['flow', 'merge']);
  }
  await step(['flow', 'update', '--phase', 'complete', '--gate-result', 'passed', '--agent', 'Orchestrator', '--message', 'All phases completed successfully']);
  await step(['flow', 'update', '--phase', 'review', '--gate-result', 'passed']);
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  show('cat .claude/team-orchestration.local.md', { stdout: readFileSync(join(dir, '.claude', 'team-orchestration.local.md'), 'utf8'), stderr: '', code: 0 });
}
