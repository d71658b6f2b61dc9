import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { ConflictError } from '../../errors.js';

/**
 * The cross-process append lock: a listening Unix socket in Linux's abstract namespace, named after
 * the log directory. Binding the name is the lock; the kernel drops the name the instant the holder
 * exits for any reason (kill -9 included), so a crashed holder can never wedge the workspace and
 * there is no stale lock file to break. Acquire + release costs ~50 µs.
 *
 * Abstract sockets are per network namespace: processes in different containers that share the
 * workspace through a volume do not exclude each other (documented in the README).
 */
export interface LockHandle {
  release(): Promise<void>;
}

export interface LockOptions {
  /** Give up (CONFLICT) after this long. */
  timeoutMs: number;
}

export function lockNameFor(dir: string): string {
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // The directory may not exist yet; its given path is then the identity.
  }
  return `\0baton-lock-${createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
}

function tryListen(name: string): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    const onError = (error: NodeJS.ErrnoException): void => {
      server.removeAllListeners();
      if (error.code === 'EADDRINUSE') resolve(undefined);
      else reject(error);
    };
    server.once('error', onError);
    server.listen({ path: name, exclusive: true }, () => {
      server.removeListener('error', onError);
      // Nobody ever connects; an unref'd server does not keep the process alive.
      server.unref();
      resolve(server);
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function acquireProcessLock(name: string, options: LockOptions): Promise<LockHandle> {
  const deadline = Date.now() + options.timeoutMs;
  let wait = 0.5;
  for (;;) {
    const server = await tryListen(name);
    if (server) {
      let released = false;
      return {
        release: () =>
          new Promise<void>((resolve) => {
            if (released) return resolve();
            released = true;
            server.close(() => resolve());
          }),
      };
    }
    if (Date.now() >= deadline) {
      throw new ConflictError(`the log lock was not obtained within ${options.timeoutMs} ms (another process holds it)`, {
        timeout_ms: options.timeoutMs,
      });
    }
    // Jittered backoff, capped low: holders keep the lock for a write and an fsync (~0.3 ms).
    await sleep(wait * (0.5 + Math.random()));
    wait = Math.min(wait * 2, 8);
  }
}
