import { afterAll, expect, it } from 'vitest';
import { flowDemo } from '../../src/demo/flow.js';
import { runDemo } from '../helpers/demo.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { parse } from 'yaml';

afterAll(removeTempDirs);

it('the flow demo runs a team flow through a failed verification, a second iteration and completion', async () => {
  const { shown } = await runDemo('baton-demo-', flowDemo);
  const merges = shown.filter((s) => s.cmd.includes('flow merge'));
  expect(merges.map((s) => s.stdout.trim())).toEqual(['1 sub-phase(s) failed: verification', 'All sub-phases passed']);
  expect(shown.at(-2)!.code).toBe(2);
  const file = shown.at(-1)!;
  expect(file.cmd).toBe('cat .claude/team-orchestration.local.md');
  const front = parse(file.stdout.split('\n---\n')[0]!.replace(/^---\n/, '')) as Record<string, unknown>;
  expect(front).toMatchObject({ active: false, current_phase: 'complete', iteration: 2, mode: 'team', outcome: 'complete' });
  expect(file.stdout).toContain('### Iteration 2\n- Reason: review_verification failed\n');
  expect(file.stdout).toContain('### Orchestration Complete\n');
});
