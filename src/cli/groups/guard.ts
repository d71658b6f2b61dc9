import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton guard …`: file reservations, checked where agents write (the hooks run it). */
export function registerGuard(program: Command): void {
  program
    .command('guard')
    .description('who holds each path: exit 0 when every path is free or yours, 4 when a live claim of another holder reserves one')
    .argument('[PATH...]', 'files, absolute or relative to the current directory (to the workspace when you are outside it)')
    .option('--staged', 'check the paths git has staged (the pre-commit hook: baton setup git-hooks)')
    .addHelpText(
      'after',
      `
A live claim reserves its WU's code_paths and the claim's --paths for its holder (its session, or a
later session of the same agent identity). You are the acting session (--session / BATON_SESSION)
or agent identity (BATON_AGENT_IDENTITY). With --staged, BATON_GUARD=off skips the check (exit 0)
and records the skip as a guard.skipped event.

Examples:
  baton guard src/parser.ts docs/api.md
  baton --session "$BATON_SESSION" guard --staged --human
  BATON_GUARD=off git commit -m 'hotfix'   # the pre-commit hook skips, and records it`,
    )
    .action(runs(async (ctx, paths: string[], options: { staged?: boolean }) => (await loadCommand('guard')).guard(ctx, paths, options)));
}
