import type { Command } from 'commander';
import type { SubagentStartFlags } from '../commands/subagent-commands.js';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton subagent start | finish` (tasks.md §8). */
export function registerSubagent(program: Command): void {
  const subagent = program.command('subagent').description('record subagents a session starts and finishes');

  subagent
    .command('start')
    .description('start a subagent of the acting session, rooted at one of its tasks')
    .option('--kind <kind>', 'e.g. instrumentation, verification, chart_creation')
    .option('--root-task <task>', 'a task of the acting session')
    .option('--idempotency-key <key>', 'a repeat with the same key returns the first subagent')
    .addHelpText('after', '\nExamples:\n  baton --session "$BATON_SESSION" subagent start --kind instrumentation --root-task task_0123456789abcdef01234567')
    .action(runs(async (ctx, options: SubagentStartFlags) => (await loadCommand('subagent-commands')).subagentStart(ctx, options)));

  subagent
    .command('finish')
    .description('mark a subagent finished (again: no change, exit 0)')
    .argument('<id>', 'the subagent id')
    .addHelpText('after', '\nExamples:\n  baton subagent finish subagent_0123456789abcdef01234567')
    .action(runs(async (ctx, id: string) => (await loadCommand('subagent-commands')).subagentFinish(ctx, id)));
}
