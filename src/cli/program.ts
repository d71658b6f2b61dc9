import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerInit } from './groups/init.js';
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
import { BatonError, ErrorCode, invalidInput } from '../errors.js';
import { chooseMode, Output } from './output.js';

/**
 * The `baton` program. Group files only declare commands (commander alone); each action imports
 * its implementation on demand, so `baton --version` loads neither zod nor the store.
 */
function packageVersion(): string {
  // Walk up from this file: the compiled tree and the bundled bin sit at different depths.
  let dir = new URL('.', import.meta.url);
  for (let depth = 0; depth < 6; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'baton' && pkg.version) return pkg.version;
    } catch {
      // not here; look one level up
    }
    dir = new URL('..', dir);
  }
  return 'unknown';
}

export function buildProgram(): Command {
  const program = new Command('baton')
    .description('Durable state for multi-agent coding work: an append-only, hash-chained event log and the views folded from it.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--dir <path>', 'the workspace directory (default: the git top level, else the current directory; env BATON_DIR)')
    .option('--json', 'print JSON envelopes, one per line (the default when stdout is not a terminal)')
    .option('--human', 'print human text (wins over --json)')
    .option('--session <id>', 'the session acting (env BATON_SESSION); recorded as the actor of appended events')
    .showHelpAfterError(false)
    .addHelpText(
      'after',
      `
Environment:
  BATON_DIR          workspace directory
  BATON_SESSION      acting session id
  BATON_NOW          fix the clock for the whole command (ISO-8601 UTC)
  BATON_STORE_URL    postgres://… to use PostgreSQL instead of the embedded JSONL log

Exit codes: 0 ok, 1 unexpected, 2 invalid input, 3 integrity failure, 4 conflict, 5 store unavailable, 130 interrupted.`,
    );
  registerInit(program);
  registerLog(program);
  registerFlow(program);
  registerDeepDive(program);
  registerReplay(program);
  registerSession(program);
  registerMem(program);
  registerHooks(program);
  registerWu(program);
  registerInitiative(program);
  registerOrchestrate(program);
  registerTask(program);
  registerSubagent(program);
  registerOrchestration(program);
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  const program = buildProgram();
  const commands = [program, ...allSubcommands(program)];
  for (const command of commands) {
    command.exitOverride();
    // Commander's own error text is replaced by Baton's error envelope below.
    command.configureOutput({ writeErr: () => undefined, outputError: () => undefined });
  }
  process.once('SIGINT', () => {
    const output = new Output(chooseMode(program.opts(), Boolean(process.stdout.isTTY)));
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
      const output = new Output(chooseMode(program.opts(), Boolean(process.stdout.isTTY)));
      const message = error.message.replace(/^error: /, '');
      const flag = /'(-[^' ]+)/.exec(message)?.[1];
      process.exitCode = output.error(invalidInput(message, flag), undefined);
      return;
    }
    throw error;
  }
}

function allSubcommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allSubcommands(c)]);
}
