import type { Command } from 'commander';
import { runCommand } from '../run-command.js';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('create the workspace state folder .baton/ (idempotent)')
    .addHelpText('after', '\nExamples:\n  baton init\n  baton --dir /path/to/repo init --json')
    .action(async (_options: unknown, command: Command) => {
      await runCommand(command, async (ctx) => (await import('../commands/init.js')).initCommand(ctx));
    });
}
