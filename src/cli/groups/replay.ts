import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runCommand } from '../run-command.js';

/**
 * The views `--view` takes (projections/index.ts's PROJECTIONS; test/cli-help-nits.test.ts holds
 * the two equal), listed here so `replay --help` names them without loading a projection.
 */
export const REPLAY_VIEWS: Readonly<Record<string, string>> = {
  convergence: 'a proposal thread (--thread)',
  deep_dive_file: 'the rendered .claude/deep-dive.local.md',
  flow: 'the most recent flow',
  flow_file: 'the rendered flow state file',
  inbox: 'signals (--for, --thread, --intent, --wu, --all)',
  initiative_plan: 'plan.json of an initiative (target: the INIT)',
  initiative_status: 'status.json of an initiative (target: the INIT)',
  last_stopping_point: 'what to do next, and how to resume',
  log_stats: 'head, counts, events by type',
  roster: 'sessions (--include-stale)',
  session: 'one session (target or --session-id)',
  sessions: 'every session',
  task: 'one task (target or --task)',
  tasks: 'tasks (--state, --session-id)',
  wu_explain: 'why a WU is in its state (target: the WU)',
};

/** `baton replay`: any view as of a past position, for auditors. */
export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('compute a view as of a past position of the log (time travel for auditors)')
    .requiredOption('--view <name>', 'the view to compute (see Views below)')
    .argument('[target]', 'initiative-status, initiative-plan: the INIT; wu-explain: the WU; task: the task; session: the session')
    .option('--to <seq>', 'the last seq to include')
    .option('--at <iso>', 'include every event recorded at or before this time')
    .option('--include-stale', 'roster: also abandoned sessions')
    .option('--for <reader>', 'inbox: the reader (session id, agent identity or display name); without it, every signal')
    .option('--thread <thread>', 'inbox, convergence: the thread')
    .option('--intent <intents>', 'inbox: only these intents')
    .option('--wu <WU>', 'inbox: only this WU')
    .option('--all', 'inbox: also signals already read')
    .option('--task <id>', 'task: the task')
    .option('--state <state>', 'tasks: only tasks in this state')
    .option('--session-id <id>', 'tasks: only tasks of this session; session: the session')
    .addHelpText(
      'after',
      `\nViews:\n${Object.entries(REPLAY_VIEWS)
        .map(([name, what]) => `  ${name.padEnd(20)}${what}`)
        .join('\n')}`,
    )
    .addHelpText('after', '\nExamples:\n  baton replay --view log_stats --to 120\n  baton replay --view log_stats --at 2026-11-01T12:00:00Z')
    .action(async (target: string | undefined, options: ReplayOptions, command: Command) => {
      const { view, to, at, includeStale, all, sessionId, ...rest } = options;
      const args = { ...rest, include_stale: includeStale, all, session_id: sessionId, target };
      await runCommand(command, async (ctx) =>
        (await loadCommand('replay')).replay(ctx, { view, ...(to !== undefined ? { to } : {}), ...(at !== undefined ? { at } : {}) }, args),
      );
    });
}

interface ReplayOptions {
  view: string;
  to?: string;
  at?: string;
  includeStale?: boolean;
  for?: string;
  thread?: string;
  intent?: string;
  wu?: string;
  all?: boolean;
  task?: string;
  state?: string;
  sessionId?: string;
}
