import { afterAll, expect, it } from 'vitest';
import { coordinationDemo } from '../../src/demo/coordination.js';
import { batonIn } from '../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

it('the coordination demo negotiates a proposal to convergence', async () => {
  const dir = makeTempDir('baton-demo-');
  await batonIn(dir, ['init']);
  const shown: { cmd: string; code: number; stdout: string }[] = [];
  await coordinationDemo(
    async (args, env) => {
      const r = await batonIn(dir, args, { env: env ?? {} });
      return { stdout: r.stdout, stderr: r.stderr, code: r.code ?? -1 };
    },
    (cmd, r) => shown.push({ cmd, code: r.code, stdout: r.stdout }),
  );
  const converged = shown.filter((s) => s.cmd.includes('mem converged'));
  // Not converged yet is exit 6 (#23: exit 1 is never a domain answer), then converged.
  expect(converged.map((s) => s.code)).toEqual([6, 6, 0]);
  expect(converged.at(-1)!.stdout).toContain(': converged');
  expect(shown.find((s) => s.cmd.includes('hooks drain'))!.stdout).toContain('[signal:received]');
});
