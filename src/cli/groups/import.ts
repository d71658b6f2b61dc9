import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton import …`: bring another system's state into the log. */
export function registerImport(program: Command): void {
  const group = program.command('import').description('bring a whole repository of another tool into the log');
  group
    .command('lumenflow')
    .description('import a LumenFlow repository: lanes, initiatives, WU YAML, wu-events.jsonl history, stamps (re-runs append only what changed)')
    .argument('[REPO]', 'the repository folder (default: the current folder)')
    .option('--dry-run', 'plan and report, append nothing')
    .option('--skip-invalid', 'import the valid files and report how many were skipped (default: one invalid file fails the whole import)')
    .addHelpText(
      'after',
      '\nExamples:\n  baton import lumenflow\n  baton import lumenflow ../my-lumenflow-repo --dry-run\n  baton import lumenflow --skip-invalid',
    )
    .action(
      runs(async (ctx, repo: string | undefined, options: { dryRun?: boolean; skipInvalid?: boolean }) =>
        (await loadCommand('import-lumenflow')).importLumenflowCommand(ctx, repo, options),
      ),
    );
}
