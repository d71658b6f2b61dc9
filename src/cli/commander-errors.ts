import type { Command, CommanderError } from 'commander';

/**
 * Commander's refusals (a missing argument, an option without its value, an unknown option) in
 * Baton's words, naming the flag or argument as every other INVALID_INPUT does: `--view: is
 * required`, not "error: required option '--view <name>' not specified". An unknown command keeps
 * commander's "Did you mean …?" when a command is close to it, and otherwise lists the commands of
 * the group it was given to (`command`, when known). Anything else keeps commander's text.
 */
export function commanderProblem(error: CommanderError, command?: Command): { rule: string; field: string | undefined; details?: Record<string, unknown> } {
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
    case 'commander.unknownCommand':
      if ((m = /unknown command '(.*?)'(?:\s*\(Did you mean (?:one of )?(.+)\?\))?/.exec(text)) && command !== undefined)
        return unknownCommand(command, m[1]!, m[2], text);
      break;
  }
  // The text stands alone: invalidInput adds no field prefix when the field is undefined.
  return { rule: text, field: undefined };
}

/** `baton wu frobnicate`: the closest command, or else every command of the group, and where its help is. */
function unknownCommand(
  group: Command,
  name: string,
  closest: string | undefined,
  text: string,
): { rule: string; field: undefined; details: Record<string, unknown> } {
  const path = commandPath(group);
  if (closest !== undefined) return { rule: text, field: undefined, details: { command: name, group: path, did_you_mean: closest.split(/,\s*/) } };
  const commands = group
    .createHelp()
    .visibleCommands(group)
    .map((c) => c.name())
    .filter((n) => n !== 'help');
  return {
    rule: `unknown command '${name}'; the commands of ${path} are: ${commands.join(', ')} (${path} --help says what each does)`,
    field: undefined,
    details: { command: name, group: path, commands },
  };
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
