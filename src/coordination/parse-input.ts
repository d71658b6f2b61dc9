import type { z } from 'zod';
import { describeZodIssues } from '../../events/validation.js';
import { invalidInput } from '../errors.js';

/** Parse a command's input with its schema; errors name the flag the user typed (`flags`: field → flag). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, flags: Record<string, string>): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw invalidInput(
    describeZodIssues(parsed.error).map((p) => {
      const [head, ...rest] = p.field.split('.');
      return { field: [flags[head ?? ''] ?? head, ...rest].join('.'), rule: p.rule };
    }),
  );
}
