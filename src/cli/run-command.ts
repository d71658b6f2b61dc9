import type { Command } from 'commander';
import { CommandContext, type GlobalFlags } from './context.js';
import { chooseMode, Output } from './output.js';
import { stdoutIsTTY } from './stdio.js';
import { uninitialisedReadCheck } from './uninitialised-reads.js';

/**
 * Runs one command's body with its context, turning any failure into the error envelope and the
 * exit code of the spec's table. The body returns its exit code (0 unless it has a domain meaning).
 */
export async function runCommand(command: Command, body: (ctx: CommandContext) => Promise<number | void>): Promise<void> {
  const flags = command.optsWithGlobals<GlobalFlags>();
  let ctx: CommandContext | undefined;
  try {
    ctx = new CommandContext(flags);
    ctx.checkWorkspaceWith(uninitialisedReadCheck(command, ctx.env));
    const code = await body(ctx);
    process.exitCode = code ?? 0;
  } catch (error) {
    const output = ctx?.output ?? new Output(chooseMode(flags, stdoutIsTTY));
    process.exitCode = output.error(error, ctx?.now);
  } finally {
    await ctx?.close();
  }
}

/**
 * A command's action: commander calls it with the positional arguments, the options and the command
 * itself; `body` gets the context, then the arguments and the options (trailing ones it does not
 * need may be left out).
 */
export function runs<A extends unknown[]>(body: (ctx: CommandContext, ...args: A) => Promise<number | void>): (...args: [...A, Command]) => Promise<void> {
  return (...args) => {
    const command = args[args.length - 1] as Command;
    return runCommand(command, (ctx) => body(ctx, ...(args.slice(0, -1) as A)));
  };
}
