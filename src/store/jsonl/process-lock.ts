import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { ConflictError } from '../../errors.js';

/**
 * The cross-process append lock: a listening Unix socket in Linux's abstract namespace, named after
 * the log directory. Binding the name is the lock; the kernel drops the name the instant the holder
 * exits for any reason (kill -9 included), so a crashed holder can never wedge the workspace and
 * there is no stale lock file to break.
 *
 * Waiting is by notification, not polling: a waiter connects to the holder's socket and retries
 * the moment that connection closes — when the holder releases (it ends every connection) or dies
 * (the kernel closes them). A short timer still retries, in case a close is ever missed.
 *
 * Abstract sockets are per network namespace: processes in different containers that share the
 * workspace through a volume do not exclude each other (documented in docs/stores.md).
 */
export interface LockHandle {
  release(): Promise<void>;
}

export interface LockOptions {
  /** Give up (CONFLICT) after this long. */
  timeoutMs: number;
}

export function lockNameFor(dir: string): string {
  return lockNameForIdentity(lockIdentity(dir));
}

/** What a lock is named after: the directory's real path, or its given path while it does not exist. */
export function lockIdentity(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    // The directory may not exist yet; its given path is then the identity.
    return dir;
  }
}

export function lockNameForIdentity(identity: string): string {
  return `\0baton-lock-${createHash('sha256').update(identity).digest('hex').slice(0, 40)}`;
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
      // An unref'd server does not keep the process alive.
      server.unref();
      resolve(server);
    });
  });
}

/** Resolves when the current holder lets go (or after `maxWaitMs`, as a safety net). */
function waitForRelease(name: string, maxWaitMs: number): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(finish, maxWaitMs);
    const socket: Socket = connect({ path: name });
    // ECONNREFUSED: the holder released between our bind attempt and this connect — retry now.
    socket.once('error', finish);
    socket.once('close', finish);
    socket.once('end', finish);
    socket.on('data', () => undefined);
  });
}

export async function acquireProcessLock(name: string, options: LockOptions): Promise<LockHandle> {
  const deadline = Date.now() + options.timeoutMs;
  let attempt = 0;
  for (;;) {
    const server = await tryListen(name);
    if (server) {
      const waiters = new Set<Socket>();
      server.on('connection', (socket) => {
        socket.unref();
        socket.on('error', () => undefined);
        waiters.add(socket);
        socket.once('close', () => waiters.delete(socket));
      });
      let released = false;
      return {
        release: () =>
          new Promise<void>((resolve) => {
            if (released) return resolve();
            released = true;
            server.close(() => resolve());
            // Closing the listener alone keeps accepted connections open: end them so every
            // waiter wakes up now.
            for (const socket of waiters) socket.destroy();
          }),
      };
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new ConflictError(`the log lock was not obtained within ${options.timeoutMs} ms (another process holds it)`, {
        timeout_ms: options.timeoutMs,
      });
    }
    attempt += 1;
    // Waiters woken together race for the bind; a little jitter after repeated losses spreads them.
    if (attempt > 2) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 4)));
    await waitForRelease(name, Math.min(remaining, 50));
  }
}
