import type { Command } from 'commander';
import { runCommand } from '../run-command.js';

/** `baton replay`: any view as of a past position, for auditors. */
export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('compute a view as of a past position of the log (time travel for auditors)')
    .requiredOption('--view <name>', 'the view to compute (see the list below)')
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
    .addHelpText('after', '\nExamples:\n  baton replay --view log_stats --to 120\n  baton replay --view log_stats --at 2026-11-01T12:00:00Z')
    .action(async (target: string | undefined, options: ReplayOptions, command: Command) => {
      const { view, to, at, includeStale, all, sessionId, ...rest } = options;
      const args = { ...rest, include_stale: includeStale, all, session_id: sessionId, target };
      await runCommand(command, async (ctx) =>
        (await import('../commands/replay.js')).replay(ctx, { view, ...(to !== undefined ? { to } : {}), ...(at !== undefined ? { at } : {}) }, args),
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
