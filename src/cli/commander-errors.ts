import type { CommanderError } from 'commander';

/**
 * Commander's refusals (a missing argument, an option without its value, an unknown option) in
 * Baton's words, naming the flag or argument as every other INVALID_INPUT does: `--view: is
 * required`, not "error: required option '--view <name>' not specified". Anything else keeps
 * commander's text (an unknown command with its "Did you mean …?").
 */
export function commanderProblem(error: CommanderError): { rule: string; field: string | undefined } {
  const text = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  const longFlag = (flags: string): string => /--[A-Za-z0-9-]+/.exec(flags)?.[0] ?? flags.split(/[ ,]/)[0]!;
  let m: RegExpExecArray | null;
  switch (error.code) {
    case 'commander.missingArgument':
      if ((m = /missing required argument '(.+)'/.exec(text))) return { rule: 'is required', field: m[1] };
      break;
    case 'commander.optionMissingArgument':
      if ((m = /option '(.+)' argument missing/.exec(text))) return { rule: `needs a value (${m[1]})`, field: longFlag(m[1]!) };
      break;
    case 'commander.missingMandatoryOptionValue':
      if ((m = /required option '(.+)' not specified/.exec(text))) return { rule: `is required (${m[1]})`, field: longFlag(m[1]!) };
      break;
    case 'commander.unknownOption':
      if ((m = /unknown option '(.+?)'(?:\s*\(Did you mean (.+)\?\))?/.exec(text))) {
        return { rule: `is not an option of this command${m[2] ? ` (did you mean ${m[2]}?)` : ''}; --help lists them`, field: m[1] };
      }
      break;
  }
  // The text stands alone: invalidInput adds no field prefix when the field is undefined.
  return { rule: text, field: undefined };
}
