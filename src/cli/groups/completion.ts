import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton completion bash|zsh|fish`: a completion script generated from the command tree. */
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
}
