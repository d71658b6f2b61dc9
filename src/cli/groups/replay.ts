import type { Command } from 'commander';
import { runCommand } from '../run-command.js';

/** `baton replay`: any view as of a past position, for auditors. */
export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('compute a view as of a past position of the log (time travel for auditors)')
    .requiredOption('--view <name>', 'the view to compute (see the list below)')
    .option('--to <seq>', 'the last seq to include')
    .option('--at <iso>', 'include every event recorded at or before this time')
    .addHelpText('after', '\nExamples:\n  baton replay --view log_stats --to 120\n  baton replay --view log_stats --at 2026-11-01T12:00:00Z')
    .action(async (options: { view: string; to?: string; at?: string }, command: Command) => {
      await runCommand(command, async (ctx) => (await import('../commands/replay.js')).replay(ctx, options));
    });
}
