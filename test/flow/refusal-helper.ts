import { expect } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { errorEnvelopeOf } from '../helpers/cli.js';
import type { FlowWs } from '../helpers/flow-cli.js';

/** Exit 2 with this code (and message), nothing appended, every `.claude/` file byte-identical. */
export async function expectRefused(w: FlowWs, call: () => Promise<CliResult>, code: string, message?: string | RegExp): Promise<void> {
  const before = w.snapshot();
  const result = await call();
  expect(result.code, result.stdout + result.stderr).toBe(2);
  const error = errorEnvelopeOf(result);
  expect(error.code).toBe(code);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else if (message) expect(error.message).toMatch(message);
  expect(w.snapshot()).toEqual(before);
}

/** Exit 0 and nothing appended, files byte-identical. */
export async function expectUnchanged(w: FlowWs, call: () => Promise<CliResult>): Promise<CliResult> {
  const before = w.snapshot();
  const result = await call();
  expect(result.code, result.stdout + result.stderr).toBe(0);
  expect(w.snapshot()).toEqual(before);
  return result;
}
