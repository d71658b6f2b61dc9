import { BatonError, ErrorCode } from '../../errors.js';
import { describeTarget, type PostgresTarget } from './postgres-target.js';

/**
 * Turning what `pg` throws into Baton's error codes. A server that cannot be reached, refuses the
 * login or goes away is STORE_UNAVAILABLE (exit 5), naming host and port; everything else keeps its
 * own meaning.
 */

/** Socket-level failures: the server is not there (or not reachable) at all. */
const UNREACHABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ECONNRESET',
  'EPIPE',
  'EACCES',
]);

/** SQLSTATEs that mean "no usable server session" rather than "your statement was wrong". */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith('08') || // connection exception
    code.startsWith('28') || // invalid authorisation
    code === '3D000' || // database does not exist
    code === '53300' || // too many connections
    code === '57P01' || // admin shutdown
    code === '57P02' || // crash shutdown
    code === '57P03' // cannot connect now (starting up / shutting down)
  );
}

interface ErrorShape {
  code?: unknown;
  message?: unknown;
}

export function isUnavailable(error: unknown): boolean {
  if (error instanceof BatonError) return error.code === ErrorCode.STORE_UNAVAILABLE;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as ErrorShape;
  if (typeof code === 'string' && (UNREACHABLE_ERRNO.has(code) || (/^[0-9A-Z]{5}$/.test(code) && isUnavailableSqlState(code)))) return true;
  // pg reports a dropped or timed-out connection with a plain Error and no code.
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|timeout expired|Client has encountered a connection error|not queryable/i.test(message)
  );
}

/** The phase an operation was in, which decides what can be said about what was written. */
export const FailurePhase = {
  /** Nothing was sent that could change the log. */
  beforeWrite: 'before_write',
  /** COMMIT was sent and its answer lost: the append may or may not have happened. */
  commit: 'commit',
} as const;
export type FailurePhase = (typeof FailurePhase)[keyof typeof FailurePhase];

export function unavailableError(target: PostgresTarget, error: unknown, phase: FailurePhase = FailurePhase.beforeWrite): BatonError {
  const reason = describeCause(error);
  const outcome =
    phase === FailurePhase.commit
      ? 'the connection was lost while committing, so the append may or may not have been written (retry with the same idempotency key to find out)'
      : 'nothing was written';
  return new BatonError(
    ErrorCode.STORE_UNAVAILABLE,
    `cannot reach PostgreSQL at ${describeTarget(target)} (database ${target.database || '(default)'}, workspace ${target.workspaceId}): ${reason}; ${outcome}`,
    { kind: 'postgres', host: target.host, port: target.port, reason },
  );
}

/** Rethrow as STORE_UNAVAILABLE when the server is the problem; otherwise unchanged. */
export function translateFailure(target: PostgresTarget, error: unknown, phase: FailurePhase = FailurePhase.beforeWrite): unknown {
  if (error instanceof BatonError) return error;
  return isUnavailable(error) ? unavailableError(target, error, phase) : error;
}

function describeCause(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { code, message } = error as ErrorShape;
  const text = typeof message === 'string' && message !== '' ? message : 'connection failed';
  // AggregateError (several addresses tried) carries the useful part in its code only.
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}
