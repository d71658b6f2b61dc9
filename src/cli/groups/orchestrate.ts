import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton orchestrate …` (work-units.md §7–§10): plan, launch and reconcile an initiative. */
export function registerOrchestrate(program: Command): void {
  const orchestrate = program.command('orchestrate').description('plan, launch and reconcile the work units of an initiative');

  orchestrate
    .command('plan')
    .description('the waves the next run would launch (dry run: appends nothing, writes nothing)')
    .argument('<INIT>', 'the initiative id')
    .option('--max-active-workers <n>', 'capacity (0 pauses launches)')
    .addHelpText('after', '\nExamples:\n  baton orchestrate plan INIT-1\n  baton orchestrate plan INIT-1 --max-active-workers 3')
    .action(runs(async (ctx, id: string, options: { maxActiveWorkers?: string }) => (await loadCommand('orchestrate')).orchestratePlan(ctx, id, options)));

  orchestrate
    .command('status')
    .description("every WU's orchestration state and the next safe actions (rewrites the latest attempt's status.json)")
    .argument('<INIT>', 'the initiative id')
    .option('--max-active-workers <n>', "capacity (default: the latest run's, else config, else unlimited)")
    .addHelpText('after', '\nExamples:\n  baton orchestrate status INIT-1\n  baton orchestrate status INIT-1 --json | jq .next_safe_actions')
    .action(runs(async (ctx, id: string, options: { maxActiveWorkers?: string }) => (await loadCommand('orchestrate')).orchestrateStatus(ctx, id, options)));

  orchestrate
    .command('run')
    .description('launch: write an attempt bundle with a handoff per launchable WU and record them')
    .argument('<INIT>', 'the initiative id')
    .option('--client <client>', 'claude-code (XML handoffs) | codex | gemini | generic (Markdown)')
    .option('--max-active-workers <n>', 'capacity for this run (0 pauses launches)')
    .option('--print-handoffs', 'print each handoff file inline instead of its path')
    .addHelpText(
      'after',
      '\nExamples:\n  baton orchestrate run INIT-1 --client codex\n  baton orchestrate run INIT-1 --client claude-code --print-handoffs --human',
    )
    .action(
      runs(async (ctx, id: string, options: { client?: string; maxActiveWorkers?: string; printHandoffs?: boolean }) =>
        (await loadCommand('orchestrate-run')).orchestrateRun(ctx, id, options),
      ),
    );
}
