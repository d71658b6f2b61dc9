import type { InputFault } from '../deciders/refusal.js';
import type { FieldProblem } from '../events/validation.js';
import { formatProblems } from '../events/validation.js';

import { ErrorCode } from '../deciders/error-codes.js';

export { ErrorCode };

export const EXIT_CODES: Record<string, number> = {
  INVALID_INPUT: 2,
  UNKNOWN_ID: 2,
  ILLEGAL_TRANSITION: 2,
  LOG_CORRUPT: 3,
  INTEGRITY_BLOCKED: 3,
  SYMLINK_REFUSED: 3,
  CONFLICT: 4,
  IDEMPOTENCY_CONFLICT: 4,
  STORE_UNAVAILABLE: 5,
  UNEXPECTED: 1,
  INTERRUPTED: 130,
  // a read in a folder with no .baton/ (src/cli/uninitialised-reads.ts)
  NO_WORKSPACE: 2,
  // `log anchor` outside a git repository: where anchors are kept is unavailable
  NO_GIT_REPOSITORY: 5,
  // phase-gates.md §11
  NO_FLOW: 2,
  FLOW_ACTIVE: 2,
  FLOW_ENDED: 2,
  NOT_TEAM_MODE: 2,
  NO_DEEP_DIVE: 2,
  DEEP_DIVE_EXISTS: 2,
  // coordination.md §16
  SESSION_ENDED: 2,
  AMBIGUOUS_RECIPIENT: 2,
  SELF_ADDRESSED: 2,
  AMBIGUOUS_SESSION: 2,
  WORKSPACE_ID_REQUIRED: 2,
  UNREAD_DIRECTED_SIGNALS: 2,
  // tasks.md §10.7
  UNKNOWN_TASK: 2,
  UNKNOWN_SUBAGENT: 2,
  UNKNOWN_SESSION: 2,
  SPAWN_FAILED: 1,
  EMPTY_COMMAND: 1,
  // work-units.md §18
  ALREADY_EXISTS: 2,
  NOT_CLAIMED: 2,
  WU_BLOCKED: 2,
  DEPENDENCY_CYCLE: 2,
  GATE_FAILED: 2,
  CONTAMINATED: 3,
  INTEGRITY: 3,
  ALREADY_CLAIMED: 4,
  // claims that bind: another holder, readiness
  NOT_HOLDER: 4,
  DEPENDENCIES_NOT_DONE: 4,
  LANE_AT_WIP_LIMIT: 4,
  NO_IDENTITY: 2,
};

/** Exit code for a code; `UNKNOWN_<THING>` codes are unknown ids (2). */
export function exitCodeFor(code: string): number {
  const known = EXIT_CODES[code];
  if (known !== undefined) return known;
  if (code.startsWith('UNKNOWN_')) return 2;
  return 1;
}

export class BatonError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  /** The input at fault, by its domain name, when a pure refusal named one (each surface names it its own way). */
  readonly input: InputFault | undefined;

  constructor(code: string, message: string, details?: Record<string, unknown>, input?: InputFault) {
    super(message);
    this.name = 'BatonError';
    this.code = code;
    this.details = details;
    this.input = input;
  }

  get exitCode(): number {
    return exitCodeFor(this.code);
  }
}

export function invalidInput(problems: FieldProblem[] | string, field?: string): BatonError {
  if (typeof problems === 'string') {
    return new BatonError(ErrorCode.INVALID_INPUT, field ? `${field}: ${problems}` : problems, field ? { field } : undefined);
  }
  return new BatonError(ErrorCode.INVALID_INPUT, formatProblems(problems), { problems });
}

/**
 * Bad input in one domain field (`dependencies`, `pr_state`, `max_active_workers`), worded with the
 * domain name until a surface names it its own way: the CLI says its flag (`--deps`) or positional,
 * MCP its argument. Domain modules use this; `invalidInput(rule, name)` is for a name that is the
 * same on every surface (`stdin`, `BATON_NOW`) or for the CLI's own flags.
 */
export function invalidField(rule: string, field: string): BatonError {
  return new BatonError(ErrorCode.INVALID_INPUT, `${field}: ${rule}`, { field }, { field, say: (name) => `${name}: ${rule}` });
}

/**
 * Bad input in several fields at once, each by its domain name until a surface names it (the
 * CLI's flag, the MCP argument; src/app/error-envelope.ts). Surfaces recognise it by its name.
 */
export class InputProblems extends BatonError {
  constructor(readonly problems: readonly { field: string; rule: string }[]) {
    super(ErrorCode.INVALID_INPUT, problems.map((p) => `${p.field}: ${p.rule}`).join('; '), { problems });
    this.name = 'InputProblems';
  }
}

export class ConflictError extends BatonError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(ErrorCode.CONFLICT, message, details);
  }
}

export class IdempotencyConflictError extends BatonError {
  constructor(key: string) {
    super(ErrorCode.IDEMPOTENCY_CONFLICT, `idempotency key "${key}" was already used with different content`, { idempotency_key: key });
  }
}

export class LogCorruptError extends BatonError {
  constructor(message: string, details: { seq: number; offset: number; segment?: string; reason: string }) {
    super(ErrorCode.LOG_CORRUPT, message, details);
  }
}

export function isBatonError(error: unknown): error is BatonError {
  return error instanceof BatonError;
}
