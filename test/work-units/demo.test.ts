import { afterAll, expect, it } from 'vitest';
import { workUnitsDemo } from '../../src/demo/work-units.js';
import { runDemo } from '../helpers/demo.js';
import { batonIn, jsonLines } from '../helpers/cli.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

it('the work-units demo drives an initiative through launch, a stall, a contamination and finish', async () => {
  const { dir, shown } = await runDemo('baton-demo-wu-', workUnitsDemo);
  const statuses = shown.filter((s) => s.cmd.startsWith('--human orchestrate status'));
  expect(statuses.some((s) => /WU-2\s+stalled/.test(s.stdout))).toBe(true);
  expect(statuses.some((s) => /WU-1\s+contaminated/.test(s.stdout) && s.stdout.includes('BLOCKED BY INTEGRITY'))).toBe(true);
  expect(shown.find((s) => s.cmd.includes('refused while contaminated'))!.code).toBe(3);
  // The demo ends with its human `orchestrate status`; the same status in JSON, at the same moment.
  expect(shown.at(-2)!.cmd).toBe('--human orchestrate status INIT-7');
  const json = await batonIn(dir, ['--json', 'orchestrate', 'status', 'INIT-7'], { env: { BATON_NOW: '2026-04-17T16:31:00.000Z' } });
  const final = jsonLines(json.stdout)[0] as { wus: { orchestration_state: string }[]; next_safe_actions: unknown[] };
  expect(final.wus.map((w) => w.orchestration_state)).toEqual(['done', 'done', 'done', 'done']);
  expect(final.next_safe_actions).toEqual([]);
});
