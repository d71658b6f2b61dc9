import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { describeZodIssues, formatProblems } from '../events/validation.js';

/**
 * every validation message is Baton's own words naming the field, never zod's internals.
 * Checked against zod's real messages (so a zod upgrade that rewords them fails here), through the
 * one function every INVALID_INPUT message comes from.
 */
function said(schema: z.ZodType, value: unknown, field = '--flag'): string {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return formatProblems(describeZodIssues(parsed.error, field));
}

describe("zod's default messages in Baton's words", () => {
  it.each([
    [z.string(), undefined, '--flag: is required'],
    [z.string(), 5, '--flag: must be a string (got a number)'],
    [z.number(), 'x', '--flag: must be a number (got a string)'],
    [z.object({}), null, '--flag: must be an object (got null)'],
    [z.number().int(), 1.5, '--flag: must be a whole number'],
    [z.enum(['a', 'b']), 'c', '--flag: must be one of a, b'],
    [z.literal('x'), 'y', '--flag: must be x'],
    [z.string().min(1), '', '--flag: must not be empty'],
    [z.array(z.string()).min(1), [], '--flag: must not be empty'],
    [z.string().min(3), 'a', '--flag: must have at least 3 characters'],
    [z.string().max(3), 'abcd', '--flag: must have at most 3 characters'],
    [z.string().length(2), 'abc', '--flag: must have exactly 2 characters'],
    [z.number().int().min(0), -1, '--flag: must be at least 0'],
    [z.number().positive(), 0, '--flag: must be greater than 0'],
    [z.number().max(10), 11, '--flag: must be at most 10'],
    [z.string().regex(/^a$/), 'b', '--flag: does not have the required form (/^a$/)'],
    [z.iso.datetime(), 'x', '--flag: must be a valid ISO-8601 time'],
    [z.strictObject({ a: z.string() }), { a: 'x', b: 1, c: 2 }, '--flag: has unknown fields b, c'],
    [z.union([z.string(), z.number()]), true, '--flag: does not match any allowed form'],
  ])('%s on %j', (schema, value, words) => {
    expect(said(schema, value)).toBe(words);
  });

  it("a schema's own message is kept as written", () => {
    expect(said(z.string().regex(/^wu\//, 'must look like wu/<id>'), 'x', 'stream')).toBe('stream: must look like wu/<id>');
  });

  it('nested fields are named by their path', () => {
    expect(said(z.strictObject({ data: z.strictObject({ text: z.string() }) }), { data: {} }, '--events line 2')).toBe(
      '--events line 2.data.text: is required',
    );
  });
});
