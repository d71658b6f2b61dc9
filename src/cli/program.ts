import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerInit } from './groups/init.js';
import { registerAudit } from './groups/audit.js';
import { registerLog } from './groups/log.js';
import { registerFlow } from './groups/flow.js';
import { registerDeepDive } from './groups/deep-dive.js';
import { registerReplay } from './groups/replay.js';
import { registerSession } from './groups/session.js';
import { registerMem } from './groups/mem.js';
import { registerHooks } from './groups/hooks.js';
import { registerWu } from './groups/wu.js';
import { registerInitiative } from './groups/initiative.js';
import { registerOrchestrate } from './groups/orchestrate.js';
import { registerTask } from './groups/task.js';
import { registerSubagent } from './groups/subagent.js';
import { registerOrchestration } from './groups/orchestration.js';
import { registerHook, registerMcp, registerSetup } from './groups/setup.js';
import { registerGuard } from './groups/guard.js';
import { registerServe } from './groups/serve.js';
import { registerImport } from './groups/import.js';
import { registerCompletion } from './groups/completion.js';
import { registerVersion } from './groups/version.js';
import { BatonError, ErrorCode, invalidInput } from '../errors.js';
import { chooseMode, Output, OutputMode } from './output.js';
import { stdoutIsTTY } from './stdio.js';
import { commanderProblem } from './commander-errors.js';

/**
 * The `baton` program. Group files only declare commands (commander alone); each action loads
 * its implementation on demand from the registry of command modules (command-modules.ts), so
 * `baton --version` loads neither zod nor the store.
 */
/** The npm package that ships the `baton` command. */
export const PACKAGE_NAME = 'baton-state';

function packageVersion(): string {
  // Walk up from this file: the compiled tree and the bundled bin sit at different depths.
  let dir = new URL('.', import.meta.url);
  for (let depth = 0; depth < 6; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === PACKAGE_NAME && pkg.version) return pkg.version;
    } catch {
      // not here; look one level up
    }
    dir = new URL('..', dir);
  }
  return 'unknown';
}

type Registrar = (program: Command) => void;

/**
 * Every registrar, in registration order, with the top-level commands it adds (registerOrchestration
 * hangs `session <id>` off the session group). test/cli-program-groups.test.ts holds that this table
 * matches what the registrars add.
 */
export const REGISTRARS: readonly { names: readonly string[]; register: Registrar }[] = [
  { names: ['init'], register: registerInit },
  { names: ['log'], register: registerLog },
  { names: ['audit'], register: registerAudit },
  { names: ['flow'], register: registerFlow },
  { names: ['deep-dive'], register: registerDeepDive },
  { names: ['replay'], register: registerReplay },
  { names: ['session'], register: registerSession },
  { names: ['mem'], register: registerMem },
  { names: ['hooks'], register: registerHooks },
  { names: ['wu'], register: registerWu },
  { names: ['initiative'], register: registerInitiative },
  { names: ['orchestrate'], register: registerOrchestrate },
  { names: ['task', 'tasks'], register: registerTask },
  { names: ['subagent'], register: registerSubagent },
  { names: ['status', 'resume', 'sessions', 'session'], register: registerOrchestration },
  { names: ['setup'], register: registerSetup },
  { names: ['hook'], register: registerHook },
  { names: ['guard'], register: registerGuard },
  { names: ['mcp'], register: registerMcp },
  { names: ['serve'], register: registerServe },
  { names: ['import'], register: registerImport },
  { names: ['completion', '__complete'], register: registerCompletion },
  { names: ['version'], register: registerVersion },
];

/** Program options that take a value (so the word after them is no command name). */
const VALUE_OPTIONS = new Set(['--dir', '--session']);
const FLAG_OPTIONS = new Set(['--json', '--human', '--quiet']);

/**
 * The top-level command `argv` runs, when that is certain before parsing: the first word after
 * program options this function knows. Anything else (no command, help, --version, an option it
 * does not know, `--`) is undefined, and the whole program is built.
 */
export function commandNamed(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (VALUE_OPTIONS.has(arg)) {
      i += 1;
      continue;
    }
    if (FLAG_OPTIONS.has(arg) || [...VALUE_OPTIONS].some((o) => arg.startsWith(`${o}=`))) continue;
    if (arg.startsWith('-')) return undefined;
    return arg;
  }
  return undefined;
}

/**
 * The registrars a run needs. Declaring every command costs a short command real time (commander
 * builds every command with its options and help), and which group runs is known from argv: only
 * that group is declared. Parsing is unchanged — the program options are the same, and a command
 * name is looked up among the top-level commands, where it finds the same group either way. When the
 * command is not certain (help, --version, an unknown word or option), every group is declared.
 */
function registrarsFor(argv: readonly string[] | undefined): readonly { register: Registrar }[] {
  const name = argv === undefined ? undefined : commandNamed(argv);
  const some = name === undefined ? [] : REGISTRARS.filter((r) => r.names.includes(name));
  return some.length > 0 ? some : REGISTRARS;
}

/** The program; given `argv`, only the group it runs is declared (see registrarsFor). */
export function buildProgram(argv?: readonly string[]): Command {
  const program = new Command('baton')
    .description('Durable state for multi-agent coding work: an append-only, hash-chained event log and the views folded from it.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--dir <path>', 'the workspace directory (default: the git top level, else the current directory; env BATON_DIR)')
    .option('--json', 'print JSON envelopes, one per line (the default when stdout is not a terminal)')
    .option('--human', 'print human text (wins over --json)')
    .option('--session <id>', 'the session acting (env BATON_SESSION); recorded as the actor of appended events')
    .option('--quiet', 'no progress lines on stderr during long work (they appear only on a terminal, in human mode)')
    .showHelpAfterError(false)
    .addHelpText(
      'after',
      `
Environment:
  BATON_DIR          workspace directory
  BATON_SESSION      acting session id
  BATON_NOW          fix the clock for the whole command (ISO-8601 UTC)
  BATON_STORE_URL    postgres://… to use PostgreSQL instead of the embedded JSONL log

Exit codes: 0 ok, 1 unexpected, 2 invalid input, 3 integrity failure, 4 conflict, 5 store unavailable, 6 not converged (mem converged), 130 interrupted.`,
    );
  for (const { register } of registrarsFor(argv)) register(program);
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  const program = buildProgram(argv);
  const commands = [program, ...allSubcommands(program)];
  // Which command refused (an unknown subcommand is answered with that group's commands).
  const refusedBy = new WeakMap<CommanderError, Command>();
  for (const command of commands) {
    command.exitOverride((error) => {
      refusedBy.set(error, command);
      throw error;
    });
    // Commander's own error text is replaced by Baton's error envelope below. What is left on its
    // error stream is the help a bare `baton` or a bare group shows: print it, as `--help` does.
    command.configureOutput({ writeErr: (text) => process.stdout.write(text), outputError: () => undefined });
  }
  process.once('SIGINT', () => {
    // One line on stderr in both modes: stdout may be a stream of events (`log tail -f | jq`,
    // `mem watch`) that an error envelope would corrupt; exit 130 says the rest.
    const output = new Output(OutputMode.human);
    output.error(new BatonError(ErrorCode.INTERRUPTED, 'interrupted (SIGINT)'), undefined);
    process.exit(130);
  });
  try {
    await program.parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        process.exitCode = 0;
        return;
      }
      const output = new Output(chooseMode(program.opts(), stdoutIsTTY));
      const { rule, field, details } = commanderProblem(error, refusedBy.get(error));
      process.exitCode = output.error(details === undefined ? invalidInput(rule, field) : new BatonError(ErrorCode.INVALID_INPUT, rule, details), undefined);
      return;
    }
    throw error;
  }
}

function allSubcommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allSubcommands(c)]);
}
