import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton completion bash|zsh|fish`: a completion script generated from the command tree; `baton __complete` the words it asks for. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script for bash, zsh or fish (generated from the commands themselves)')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      '\nExamples:\n  eval "$(baton completion bash)"                                  # in ~/.bashrc\n  baton completion zsh > "${fpath[1]}/_baton"\n  baton completion fish > ~/.config/fish/completions/baton.fish',
    )
    .action(runs(async (ctx, shell: string) => (await loadCommand('completion')).completion(ctx, shell)));

  // The words the scripts complete that come from the log (WU ids): hidden, for the scripts alone.
  program
    .command('__complete', { hidden: true })
    .description('print the words a completion script offers: wu-ids (every WU) or open-wu-ids (the WUs not done)')
    .argument('<kind>', 'wu-ids or open-wu-ids')
    .action(runs(async (ctx, kind: string) => (await loadCommand('completion-words')).completeWords(ctx, kind)));
}
