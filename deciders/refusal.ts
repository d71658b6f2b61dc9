/**
 * A command a decider will not turn into events, or a view that cannot be built from its
 * arguments: pure, it carries the error code (architecture.md's codes and each domain's own) and
 * the message; the command handler turns it into a BatonError with that code's exit code.
 */
export class Refusal extends Error {
  override readonly name: string = 'Refusal';
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined = undefined,
  ) {
    super(message);
  }
}

/** Bad input named by its flag, in the words `invalidInput` gives a BatonError (`--flag: rule`). */
export function refuseInput(rule: string, field?: string): Refusal {
  return new Refusal('INVALID_INPUT', field ? `${field}: ${rule}` : rule, field ? { field } : undefined);
}
