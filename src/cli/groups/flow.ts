import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton flow …`: Agent Flow's phase-gate workflow on the log (phase-gates.md). */
export function registerFlow(program: Command): void {
  const flow = program.command('flow').description('phase-gate flows: phases, agents, gates, the failure loop, team mode; state files in .claude/');

  flow
    .command('init')
    .description('start a flow (one active flow per workspace)')
    .argument('[task...]', 'the task description (words are joined by single spaces; put words starting with - after --)')
    .option('--team', 'the team variant (team mode when CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1)')
    .option('--force-sequential', 'the team variant in sequential mode')
    .option('--max-iterations <n>', 'how many iterations the failure loop may run (default 10)')
    .option('--use-deep-dive', 'use the completed deep dive as context')
    .addHelpText(
      'after',
      '\nExamples:\n  baton flow init Add user authentication with JWT tokens\n  CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1 baton flow init --team --max-iterations 3 Fix the login bug',
    )
    .action(
      runs(async (ctx, task: string[], options: { team?: boolean; forceSequential?: boolean; maxIterations?: string; useDeepDive?: boolean }) =>
        (await loadCommand('flow-init')).flowInit(ctx, task, options),
      ),
    );

  flow
    .command('update')
    .description('record a gate result, move to the next phase, report a teammate, merge, complete, abort or fall back')
    .option('--phase <phase>', 'move to this phase (the next one, or complete)')
    .option('--gate-result <result>', "in_progress, passed, failed or skipped, on the current phase's gate")
    .option('--agent <agent>', 'Riko, Senku, Loid, Lawliet, Alphonse, Orchestrator, or any other agent name (e.g. Codex)')
    .option('--message <text>', 'a message kept with the record')
    .option('--parallel-group <group>', 'review_verification (team mode)')
    .option('--teammate <teammate>', 'review or verification (with --parallel-group)')
    .option('--merge-parallel', 'merge the group (with --parallel-group)')
    .option('--complete', 'complete the flow (its last gate must have passed); with --message "Aborted: …" it aborts')
    .option('--abort <reason>', 'end the flow without success')
    .option('--fallback-sequential', 'switch a team-mode flow to sequential mode')
    .option('--iteration <n>', 'assert the current iteration (Baton manages it)')
    .option('--set-task-complexity <tier>', 'unclassified, trivial, exploratory, implementation, complex or research')
    .option('--set-report-requested <bool>', 'true or false')
    .option('--set-intent-goal <text>', "the intent block's goal")
    .option('--set-intent-description <text>', "the intent block's description")
    .option('--set-intent-actions <text>', "the intent block's actions")
    .option('--set-intent-constraints <text>', "the intent block's constraints")
    .option('--set-intent-assumptions <text>', "the intent block's assumptions")
    .option('--set-codex-divergence-rounds <n>', 'an integer ≥ 0')
    .addHelpText(
      'after',
      '\nExamples:\n  baton flow update --phase planning --gate-result passed --agent Riko --message "Exploration complete"\n  baton flow update --gate-result failed --agent Lawliet --message "NEEDS_CHANGES: missing tests"\n  baton flow update --parallel-group review_verification --teammate review --gate-result passed --message APPROVED\n  baton flow update --abort "user stopped"\n  baton flow update --set-task-complexity complex --set-intent-goal "ship login"',
    )
    .action(runs(async (ctx, options: Record<string, string | boolean | undefined>) => (await loadCommand('flow-update')).flowUpdate(ctx, options)));

  flow
    .command('adopt')
    .description("take over an Agent Flow run (its state file and its deep dive) as the flow's starting state, recorded as events")
    .option('--file <path>', '.claude/orchestration.local.md or .claude/team-orchestration.local.md (default: the one present)')
    .addHelpText('after', '\nExamples:\n  baton flow adopt\n  baton flow adopt --file .claude/team-orchestration.local.md')
    .action(runs(async (ctx, options: { file?: string }) => (await loadCommand('flow-adopt')).flowAdopt(ctx, options)));

  flow
    .command('status')
    .description('the most recent flow; rewrites its state file when missing or different')
    .addHelpText('after', '\nExamples:\n  baton flow status\n  baton flow status --json | jq .flow.current_phase')
    .action(runs(async (ctx) => (await loadCommand('flow-status')).flowStatus(ctx)));

  flow
    .command('merge')
    .description('merge the review_verification group: the verdict is recorded once both teammates reported')
    .option('--parallel-group <group>', 'the group (default review_verification)')
    .addHelpText('after', '\nExamples:\n  baton flow merge\n  baton flow merge --json | jq .all_passed')
    .action(runs(async (ctx, options: { parallelGroup?: string }) => (await loadCommand('flow-merge')).flowMerge(ctx, options)));
}
