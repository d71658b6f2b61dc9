import { afterAll, expect, it } from 'vitest';
import { coordinationDemo } from '../../src/demo/coordination.js';
import { runDemo } from '../helpers/demo.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

it('the coordination demo negotiates a proposal to convergence', async () => {
  const { shown } = await runDemo('baton-demo-', (baton, show) => coordinationDemo(baton, show));
  const converged = shown.filter((s) => s.cmd.includes('mem converged'));
  // Not converged yet is exit 6, then converged.
  expect(converged.map((s) => s.code)).toEqual([6, 6, 0]);
  expect(converged.at(-1)!.stdout).toContain(': converged');
  expect(shown.find((s) => s.cmd.includes('hooks drain'))!.stdout).toContain('[signal:received]');
});
