import { acquireProcessLock, lockNameFor } from '../store/jsonl/process-lock.js';

/**
 * R4: projection files are written under the workspace's artifact lock, and each writer renders
 * the log head it reads after taking it, so a slow process never replaces a newer rendering.
 */
export async function withArtifactLock<T>(workspace: string, body: () => Promise<T>): Promise<T> {
  const lock = await acquireProcessLock(`${lockNameFor(workspace)}-artifacts`, { timeoutMs: 10_000 });
  try {
    return await body();
  } finally {
    await lock.release();
  }
}
