import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runCommand } from '../run-command.js';

/** `baton initiative update`: change an initiative's fields by hand; only what differs is recorded. */
export function registerInitiativeUpdate(initiative: Command): void {
  initiative
    .command('update')
    .description("change an initiative's fields (only the fields that differ are recorded; none differ = nothing appended)")
    .argument('<INIT>', 'the initiative id, e.g. INIT-MCP')
    .option('--title <text>', 'the title (1–200 characters)')
    .option('--status <status>', 'its status, e.g. open, in_progress, done')
    .option('--slug <slug>', 'an alias usable as the initiative of a WU')
    .option('--lanes <L1,L2>', 'the lanes its WUs may use (comma-separated)')
    .option('--wus <WU,WU>', "the WUs it lists (comma-separated; membership still follows each WU's own initiative)")
    .option('--priority <P>', 'its priority')
    .option('--owner <who>', 'its owner')
    .option('--created <date>', 'when it was created')
    .option('--target-date <date>', 'its target date')
    .addHelpText(
      'after',
      "\nExamples:\n  baton initiative update INIT-MCP --status in_progress\n  baton initiative update INIT-1 --title 'Checkout rewrite' --target-date 2026-12-31",
    )
    .action(async (id: string, o: Record<string, string | undefined>, command: Command) => {
      await runCommand(command, async (ctx) =>
        (await loadCommand('initiative-update')).initiativeUpdate(ctx, id, Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))),
      );
    });
}
