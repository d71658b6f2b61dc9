import type { z } from 'zod';
import { INVALID, type LazyCompiledSchema } from '../../../events/compiled.js';
import { BatonError, ErrorCode } from '../../errors.js';

/**
 * An envelope checked against its schema before any surface shows it, so no command can answer
 * with a malformed one: the zod schema's output, or UNEXPECTED naming the envelope's type.
 */
export function checked<S extends z.ZodType>(schema: S, envelope: z.input<S>): z.output<S> {
  const parsed = schema.safeParse(envelope);
  if (!parsed.success) {
    throw new BatonError(
      ErrorCode.UNEXPECTED,
      `internal: the ${String((envelope as { type?: unknown }).type)} envelope failed its schema: ${parsed.error.message}`,
    );
  }
  return parsed.data;
}

/**
 * `checked` with a compiled validator (events/compiled.ts): a valid envelope is checked without
 * loading zod; an invalid one loads the zod schema, so the error is `checked`'s, word for word.
 */
export async function checkedCompiled<T>(compiled: LazyCompiledSchema<T>, envelope: unknown): Promise<T> {
  const parsed = compiled.parse(envelope);
  if (parsed !== INVALID) return parsed;
  return checked(await compiled.schema(), envelope as never) as T;
}
