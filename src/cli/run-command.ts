import type { Command } from 'commander';
import { CommandContext, type GlobalFlags } from './context.js';
import { chooseMode, Output } from './output.js';
import { stdoutIsTTY } from './stdio.js';
import { refuseUninitialisedRead } from './uninitialised-reads.js';

/**
 * Runs one command's body with its context, turning any failure into the error envelope and the
 * exit code of the spec's table. The body returns its exit code (0 unless it has a domain meaning).
 */
export async function runCommand(command: Command, body: (ctx: CommandContext) => Promise<number | void>): Promise<void> {
  const flags = command.optsWithGlobals<GlobalFlags>();
  let ctx: CommandContext | undefined;
  try {
    ctx = new CommandContext(flags);
    await refuseUninitialisedRead(ctx, command);
    const code = await body(ctx);
    process.exitCode = code ?? 0;
  } catch (error) {
    const output = ctx?.output ?? new Output(chooseMode(flags, stdoutIsTTY));
    process.exitCode = output.error(error, ctx?.now);
  } finally {
    await ctx?.close();
  }
}

