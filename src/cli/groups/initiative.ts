import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';
import { registerInitiativeUpdate } from './initiative-update.js';

/** `baton initiative …` (work-units.md §2). */
export function registerInitiative(program: Command): void {
  const initiative = program.command('initiative').description('initiatives: groups of work units');
  initiative
    .command('create')
    .description('create an initiative (idempotent when the fields are the same)')
    .argument('<INIT>', 'the initiative id, e.g. INIT-1')
    .requiredOption('--title <text>', 'the title (1–200 characters)')
    .option('--lanes <L1,L2>', 'the lanes its WUs may use (comma-separated); empty = any')
    .option('--slug <slug>', 'an alias usable as the initiative of a WU')
    .addHelpText(
      'after',
      "\nExamples:\n  baton initiative create INIT-1 --title 'Checkout rewrite' --lanes 'Framework: Core,Docs'\n  baton initiative create INIT-2 --title Payments --slug payments",
    )
    .action(
      runs(async (ctx, id: string, options: { title?: string; slug?: string; lanes?: string }) =>
        (await loadCommand('initiative-create')).initiativeCreate(ctx, id, options),
      ),
    );
  registerInitiativeUpdate(initiative);
  initiative
    .command('list')
    .description('list initiatives, one per line, with their WUs counted by orchestration state')
    .addHelpText('after', '\nExamples:\n  baton initiative list --human')
    .action(runs(async (ctx) => (await loadCommand('listing')).initiativeList(ctx)));
  initiative
    .command('show')
    .description('one initiative: its title, lanes, latest attempt and every member WU with its state')
    .argument('<INIT>', 'the initiative id or slug')
    .addHelpText('after', '\nExamples:\n  baton initiative show INIT-1 --human')
    .action(runs(async (ctx, id: string) => (await loadCommand('listing')).initiativeShow(ctx, id)));
}
