import type { Command } from 'commander';
import type { TaskCreateFlags } from '../commands/task-create.js';
import type { TaskOwnFlags } from '../commands/task-own.js';
import type { TaskTransitionFlags } from '../commands/task-transition.js';
import { loadCommand } from '../command-modules.js';
import { runCommand, runs } from '../run-command.js';

/** `baton task …` and `baton tasks`: tasks of sessions (tasks.md §5–§7, §10.1). */
export function registerTask(program: Command): void {
  const task = program
    .command('task')
    .description('create, transition and own tasks; `task <id>` shows one task with its history')
    .argument('[id]', 'a task id: show that task')
    .addHelpText('after', '\nExamples:\n  baton task task_0123456789abcdef01234567\n  baton --session "$BATON_SESSION" task create --label "scan the repo"')
    .action(async (id: string | undefined, _options: unknown, command: Command) => {
      if (id === undefined) return command.help();
      await runCommand(command, async (ctx) => (await loadCommand('task-show')).taskShow(ctx, id));
    });

  task
    .command('create')
    .description('create a task owned by the acting session (--session / BATON_SESSION), queued or running')
    .option('--label <label>', 'what the task is (1–500 characters)')
    .option('--parent <task>', 'a task of the same session')
    .option('--subagent-kind <kind>', 'the kind of subagent doing it, e.g. instrumentation')
    .option('--active-form <text>', 'the present-continuous label, e.g. "Scanning the repo"')
    .option('--state <state>', 'queued (default) or running')
    .option('--idempotency-key <key>', 'a repeat with the same key returns the first task and appends nothing')
    .addHelpText(
      'after',
      '\nExamples:\n  baton --session "$BATON_SESSION" task create --label scan\n  baton task create --session session_abc --label build --state running --idempotency-key build-1',
    )
    .action(runs(async (ctx, options: TaskCreateFlags) => (await loadCommand('task-create')).taskCreate(ctx, options)));

  task
    .command('transition')
    .description('move a task to another state (only the 18 legal moves; anything else exits 2 and appends nothing)')
    .argument('<id>', 'the task id')
    .argument('<state>', 'queued, running, waiting_for_user, blocked, completed, failed, cancelled or superseded')
    .option('--reason <text>', 'why (becomes blockedReason when the target is blocked; kept in history otherwise)')
    .option('--checkpoint-id <id>', 'waiting_for_user: the pending checkpoint id (with --checkpoint-kind)')
    .option('--checkpoint-kind <kind>', 'waiting_for_user: user_choice, event_plan_confirm, mcp_install, mcp_action, manual_verification, …')
    .option('--checkpoint-summary <text>', 'waiting_for_user: what the user has to do')
    .option('--superseded-by <task>', 'superseded: the task that replaces this one')
    .option('--summary <text>', 'terminal states: the result summary')
    .option('--error-class <class>', 'failed/cancelled: auth, network, validation, permission, cancelled, internal or unknown')
    .option('--error-message <text>', 'failed/cancelled: the error message (with --error-class)')
    .addHelpText(
      'after',
      '\nExamples:\n  baton task transition task_0123456789abcdef01234567 running\n  baton task transition task_0123456789abcdef01234567 blocked --reason "login expired"\n  baton task transition task_0123456789abcdef01234567 failed --error-class network --error-message timeout',
    )
    .action(
      runs(async (ctx, id: string, state: string, options: TaskTransitionFlags) =>
        (await loadCommand('task-transition')).taskTransition(ctx, id, state, options),
      ),
    );

  task
    .command('own')
    .description('record that a task owns a branch, worktree, pull request or file (exactly one)')
    .argument('<id>', 'the task id')
    .option('--branch <name>', 'a git branch')
    .option('--worktree <path>', 'a worktree (made absolute)')
    .option('--pr <url>', 'a pull-request URL https://HOST/OWNER/REPO/pull/NUMBER')
    .option('--pr-state <state>', 'with --pr: open, closed or merged')
    .option('--file <path>', 'a file (relative to the workspace when inside it)')
    .addHelpText(
      'after',
      '\nExamples:\n  baton task own task_0123456789abcdef01234567 --branch feat/x\n  baton task own task_0123456789abcdef01234567 --pr https://github.com/acme/app/pull/42 --pr-state open',
    )
    .action(runs(async (ctx, id: string, options: TaskOwnFlags) => (await loadCommand('task-own')).taskOwn(ctx, id, options)));

  program
    .command('tasks')
    .description('list tasks in creation order')
    .option('--state <state>', 'only tasks in this state')
    .option('--session-id <id>', 'only tasks of this session')
    .addHelpText('after', '\nExamples:\n  baton tasks --state running\n  baton tasks --session-id session_0123456789abcdef01234567 --human')
    .action(runs(async (ctx, options: { state?: string; sessionId?: string }) => (await loadCommand('tasks-list')).tasksList(ctx, options)));
}
