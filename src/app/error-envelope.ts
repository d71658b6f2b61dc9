import { Refusal } from '../../deciders/refusal.js';
import { ErrorCode, InputProblems, isBatonError } from '../errors.js';

/**
 * The error envelope every surface answers with (the CLI prints it, the MCP server returns it as a
 * tool error), built here once. An input at fault is named by the surface: `nameInput` turns a
 * domain field (`reply_to`) into the CLI's flag (`--reply-to`) or the MCP argument (`reply_to`).
 * Built without zod, so a failing short command loads none (envelopes/error.ts is its schema).
 */
export type NameInput = (field: string) => string;

export interface ErrorEnvelope {
  v: 1;
  type: 'error';
  generated_at: string;
  '@timestamp': string;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

// Bad input in several fields at once (src/errors.ts, where the domain modules throw it too).
export { InputProblems };

/**
 * By name, not `instanceof`: the bin's bundles may each carry a copy of this module (only the
 * shared runtime of scripts/bundle-cli.mjs is one copy), while BatonError is shared.
 */
function isInputProblems(error: unknown): error is InputProblems {
  return isBatonError(error) && error.name === 'InputProblems' && Array.isArray((error as Partial<InputProblems>).problems);
}

export function describeError(error: unknown, nameInput: NameInput): { code: string; message: string; details: Record<string, unknown> | undefined } {
  if (isInputProblems(error)) {
    const problems = error.problems.map((p) => ({ field: nameInput(p.field), rule: p.rule }));
    return { code: error.code, message: problems.map((p) => `${p.field}: ${p.rule}`).join('; '), details: { problems } };
  }
  // A pure Refusal (deciders/, projections/) that reached a surface unconverted says the same.
  if (isBatonError(error) || error instanceof Refusal) {
    // An input named by its domain field is named here the surface's way (`root_task` → `--root-task`).
    if (error.input !== undefined) {
      const name = nameInput(error.input.field);
      const others = (error.input.others ?? []).map(nameInput);
      return { code: error.code, message: error.input.say(name, ...others), details: { ...error.details, field: name } };
    }
    return { code: error.code, message: error.message, details: error.details };
  }
  const err = error as NodeJS.ErrnoException;
  if (err && (err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS' || err.code === 'ENOSPC')) {
    return { code: ErrorCode.STORE_UNAVAILABLE, message: `${err.message}; nothing was written`, details: undefined };
  }
  return { code: ErrorCode.UNEXPECTED, message: err instanceof Error ? err.message : String(error), details: undefined };
}

/**
 * Every error envelope has `generated_at`, and `@timestamp` (the same ISO time: the orchestration
 * wizard's error field, which tasks.md keeps for parity). Without the command's clock (the
 * arguments were refused first, or BATON_NOW itself is bad) the time is BATON_NOW when it parses, else now.
 */
export function errorEnvelope(error: unknown, generatedAt: string | undefined, nameInput: NameInput, env: NodeJS.ProcessEnv = process.env): ErrorEnvelope {
  const { code, message, details } = describeError(error, nameInput);
  const at = generatedAt ?? errorClock(env);
  return { v: 1, type: 'error', generated_at: at, '@timestamp': at, code, message, ...(details ? { details } : {}) };
}

function errorClock(env: NodeJS.ProcessEnv): string {
  const fixed = env['BATON_NOW'];
  const parsed = fixed ? Date.parse(fixed) : Number.NaN;
  return new Date(Number.isNaN(parsed) ? Date.now() : parsed).toISOString();
}
