import type { z } from 'zod';
import { ruleWords } from './issue-words.js';

/** A validation failure that names the field and the rule, ready for an INVALID_INPUT message. */
export interface FieldProblem {
  field: string;
  rule: string;
}

export function describeZodIssues(error: z.ZodError, prefix = ''): FieldProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = [prefix, path].filter(Boolean).join('.') || prefix || '(root)';
    return { field, rule: ruleWords(issue.message) };
  });
}

export function formatProblems(problems: FieldProblem[]): string {
  return problems.map((p) => `${p.field}: ${p.rule}`).join('; ');
}

export type Validated<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] };

export function validateWith<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): Validated<z.infer<S>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problems: describeZodIssues(parsed.error, prefix) };
}
