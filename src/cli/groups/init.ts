import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('create the workspace state folder .baton/ (idempotent)')
    .option('--gitignore', "add .baton/ to the workspace's .gitignore (without it, init only says whether it is there)")
    .addHelpText('after', '\nExamples:\n  baton init --gitignore\n  baton --dir /path/to/repo init --json')
    .action(runs(async (ctx, options: { gitignore?: boolean }) => (await loadCommand('init')).initCommand(ctx, options)));
}
