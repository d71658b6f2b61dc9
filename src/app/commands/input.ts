import type { z } from 'zod';
import { refuseInput } from '../../../deciders/refusal.js';
import { WU_ID_PATTERN } from '../../../events/work-units/terms.js';
import { describeZodIssues } from '../../../events/validation.js';
import { InputProblems } from '../error-envelope.js';

/**
 * A command's input checked by its domain names (`reply_to`, `next_steps`), before the domain
 * function sees it: an error names the field, and each surface words it its own way (the CLI's
 * flag, the MCP argument). The domain function checks again and agrees.
 */
export function checkInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new InputProblems(describeZodIssues(parsed.error));
}

/** A work unit's id, named `wu` (the CLI calls its argument `WU`). */
export function checkWuInput(id: string): string {
  if (!WU_ID_PATTERN.test(id)) throw refuseInput(`must match ^WU-[0-9]{1,9}$, got ${JSON.stringify(id)}`, 'wu');
  return id;
}

/** Only the fields given: the domain functions treat a missing field and an undefined one alike, not so every schema. */
export function given<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}
