import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton hooks …`: client hook delivery (coordination.md §9.2, §9.3). */
export function registerHooks(program: Command): void {
  const hooks = program.command('hooks').description('client hooks that hand signals to agents');

  hooks
    .command('install')
    .description('alias of `baton setup claude-code`')
    .argument('<client>', 'claude-code')
    .addHelpText('after', '\nExamples:\n  baton hooks install claude-code')
    .action(runs(async (ctx, client: string) => (await loadCommand('setup')).setup(ctx, client)));

  hooks
    .command('drain')
    .description('print and mark delivered the pending interrupt/priority signals of a session (--session names it)')
    .addHelpText('after', '\nExamples:\n  baton hooks drain --session "$BATON_SESSION" --human')
    .action(runs(async (ctx) => (await loadCommand('hooks-drain')).hooksDrain(ctx)));
}
