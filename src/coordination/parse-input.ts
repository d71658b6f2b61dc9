import type { z } from 'zod';
import { describeZodIssues } from '../../events/validation.js';
import { InputProblems } from '../errors.js';

/** Parse a command's input with its schema; errors name each field by its domain name, which each surface names its own way. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new InputProblems(describeZodIssues(parsed.error));
}
