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
    /** The input at fault, by its domain name: each surface words it with its own name for it. */
    readonly input: InputFault | undefined = undefined,
  ) {
    super(message);
  }
}

/**
 * Which input a refusal is about, by its domain field name (`parent`, `root_task`, `session_id`),
 * and its words as a function of the name a surface gives that input: the CLI says `--root-task`,
 * MCP names its argument, the dashboard its query parameter. The pure core never names a flag.
 */
export interface InputFault {
  field: string;
  /** The words, given the surface's name for `field` and then for each of `others`, in order. */
  say: (name: string, ...others: string[]) => string;
  /** Further inputs the words name (a combination of inputs at fault): each named the surface's way too. */
  others?: readonly string[] | undefined;
}

/** A refusal about one input field: worded with the domain name until a surface names it its own way. */
export function refuseField(code: string, field: string, say: (name: string) => string, details: Record<string, unknown> = {}): Refusal {
  return new Refusal(code, say(field), { ...details, field }, { field, say });
}

/** Bad input named by its field, in the words `invalidInput` gives a BatonError (`field: rule`). */
export function refuseInput(rule: string, field?: string): Refusal {
  return field === undefined ? new Refusal('INVALID_INPUT', rule) : refuseField('INVALID_INPUT', field, (name) => `${name}: ${rule}`);
}
