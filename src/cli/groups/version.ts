import type { Command } from 'commander';

/** `baton version`: what `--version` prints (people type the word; commander suggested "session"). */
export function registerVersion(program: Command): void {
  program
    .command('version')
    .description('print the version (the same as --version)')
    .action((_options: unknown, command: Command) => {
      process.stdout.write(`${command.parent?.version() ?? 'unknown'}\n`);
    });
}
