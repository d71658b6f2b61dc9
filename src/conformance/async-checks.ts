import { isBatonError, type BatonError } from '../errors.js';

/** What the conformance suites use to wait for and to catch asynchronous outcomes. */

/** The BatonError a promise rejects with; fails when it resolves or rejects with something else. */
export async function refusal(promise: Promise<unknown>, what = 'the operation'): Promise<BatonError> {
  try {
    await promise;
  } catch (error) {
    if (isBatonError(error)) return error;
    throw error;
  }
  throw new Error(`expected ${what} to fail with a BatonError, but it succeeded`);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` until it holds; fails naming `what` after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}
