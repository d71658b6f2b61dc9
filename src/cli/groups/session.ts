import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton session …`: the live agent run (coordination.md §2). */
export function registerSession(program: Command): void {
  const session = program.command('session').description('start, heartbeat and end sessions (live agent runs)');

  session
    .command('start')
    .description('start a session: reserves a display name and prints the session id')
    .option('--agent-identity <id>', 'a stable identity several sessions may share, e.g. codex:implementer:host42 (env BATON_AGENT_IDENTITY)')
    .option('--role <role>', 'the role this session plays')
    .option('--wu <WU>', 'the WU it works on (must exist; --lane defaults to its lane)')
    .option('--lane <lane>', 'the lane it works in')
    .option('--goal <text>', 'what the run is for')
    .option('--branch <branch>', 'its git branch')
    .option('--worktree <path>', 'its worktree')
    .option('--client <type>', 'claude-code, codex, gemini or generic (claude-code gets hook delivery)')
    .addHelpText(
      'after',
      '\nExamples:\n  eval "$(baton session start --human --client codex | tail -n 1)"\n  baton session start --agent-identity reviewer:docs:a --role reviewer --json',
    )
    .action(runs(async (ctx, options: Record<string, string | undefined>) => (await loadCommand('session-start')).sessionStart(ctx, options)));

  session
    .command('heartbeat')
    .description('say the session is alive (default: the acting session)')
    .argument('[id]', 'the session id (default: --session / BATON_SESSION)')
    .addHelpText('after', '\nExamples:\n  baton session heartbeat\n  baton session heartbeat session_0123456789abcdef01234567')
    .action(runs(async (ctx, id: string | undefined) => (await loadCommand('session-end')).sessionHeartbeat(ctx, id)));

  session
    .command('end')
    .description('end a session and free its display name (anyone may end any session)')
    .argument('<id>', 'the session id')
    .option('--status <status>', 'succeeded, failed or cancelled', 'succeeded')
    .addHelpText('after', '\nExamples:\n  baton session end "$BATON_SESSION"\n  baton session end session_0123456789abcdef01234567 --status failed')
    .action(runs(async (ctx, id: string, options: { status: string }) => (await loadCommand('session-end')).sessionEnd(ctx, id, options.status)));
}
