import { afterAll, expect, it } from 'vitest';
import { workUnitsDemo } from '../../src/demo/work-units.js';
import { batonIn } from '../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

it('the work-units demo drives an initiative through launch, a stall, a contamination and finish', async () => {
  const dir = makeTempDir('baton-demo-wu-');
  await batonIn(dir, ['init']);
  const shown: { cmd: string; code: number; stdout: string }[] = [];
  await workUnitsDemo(
    async (args, env) => {
      const r = await batonIn(dir, args, { env: env ?? {} });
      return { stdout: r.stdout, stderr: r.stderr, code: r.code ?? -1 };
    },
    (cmd, r) => shown.push({ cmd, code: r.code, stdout: r.stdout }),
    dir,
  );
  const statuses = shown.filter((s) => s.cmd.startsWith('--human orchestrate status'));
  expect(statuses.some((s) => /WU-2\s+stalled/.test(s.stdout))).toBe(true);
  expect(statuses.some((s) => /WU-1\s+contaminated/.test(s.stdout) && s.stdout.includes('BLOCKED BY INTEGRITY'))).toBe(true);
  expect(shown.find((s) => s.cmd.includes('refused while contaminated'))!.code).toBe(3);
  const final = JSON.parse(shown.at(-2)!.stdout.trim()) as { wus: { orchestration_state: string }[]; next_safe_actions: unknown[] };
  expect(final.wus.map((w) => w.orchestration_state)).toEqual(['done', 'done', 'done', 'done']);
  expect(final.next_safe_actions).toEqual([]);
});
