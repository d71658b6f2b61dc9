import { afterAll, expect, it } from 'vitest';
import { workUnitsDemo } from '../../src/demo/work-units.js';
import { runDemo } from '../helpers/demo.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

it('the work-units demo drives an initiative through launch, a stall, a contamination and finish', async () => {
  const { shown } = await runDemo('baton-demo-wu-', workUnitsDemo);
  const statuses = shown.filter((s) => s.cmd.startsWith('--human orchestrate status'));
  expect(statuses.some((s) => /WU-2\s+stalled/.test(s.stdout))).toBe(true);
  expect(statuses.some((s) => /WU-1\s+contaminated/.test(s.stdout) && s.stdout.includes('BLOCKED BY INTEGRITY'))).toBe(true);
  expect(shown.find((s) => s.cmd.includes('refused while contaminated'))!.code).toBe(3);
  const final = JSON.parse(shown.at(-2)!.stdout.trim()) as { wus: { orchestration_state: string }[]; next_safe_actions: unknown[] };
  expect(final.wus.map((w) => w.orchestration_state)).toEqual(['done', 'done', 'done', 'done']);
  expect(final.next_safe_actions).toEqual([]);
});
