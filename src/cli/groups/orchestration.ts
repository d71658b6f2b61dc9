import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runCommand, runs } from '../run-command.js';

/**
 * `baton status`, `baton resume`, `baton sessions` and `baton session <id>` (tasks.md §9, §10).
 * `session <id>` hangs off the session group (coordination's) as its default action.
 */
export function registerOrchestration(program: Command): void {
  program
    .command('status')
    .description('the last stopping point: what to do next and how to resume (scoped by --session)')
    .addHelpText('after', '\nExamples:\n  baton status --human\n  baton --session "$BATON_SESSION" status | jq .lastStoppingPoint.nextAction')
    .action(runs(async (ctx) => (await loadCommand('status')).status(ctx)));

  program
    .command('resume')
    .description("print a session's resume command; --execute runs it (no shell) and exits with its code")
    .argument('<session-id>', 'the session to resume (any status)')
    .option('--execute', 'run the command, stdio inherited; exit with its exit code')
    .addHelpText('after', '\nExamples:\n  baton resume session_0123456789abcdef01234567\n  baton resume session_0123456789abcdef01234567 --execute')
    .action(runs(async (ctx, id: string, options: { execute?: boolean }) => (await loadCommand('resume')).resume(ctx, id, options)));

  program
    .command('sessions')
    .description('every session in creation order, with its effective status')
    .addHelpText('after', '\nExamples:\n  baton sessions --human')
    .action(runs(async (ctx) => (await loadCommand('sessions-views')).sessionsList(ctx)));

  const session = program.commands.find((c) => c.name() === 'session') ?? program.command('session');
  session
    .argument('[id]', 'a session id: show the session, its tasks and subagents')
    .action(async (id: string | undefined, _options: unknown, command: Command) => {
      if (id === undefined) return command.help();
      await runCommand(command, async (ctx) => (await loadCommand('sessions-views')).sessionShow(ctx, id));
    });
}
