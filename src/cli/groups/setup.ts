import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runCommand, runs } from '../run-command.js';

/** `baton setup <client>`: wire an agent client to Baton (hooks, MCP configuration, instructions). */
export function registerSetup(program: Command): void {
  program
    .command('setup')
    .description('wire an agent client to Baton: claude-code (hooks + CLAUDE.md), codex or cursor (MCP server + AGENTS.md)')
    .argument('<client>', 'claude-code, codex or cursor')
    .addHelpText(
      'after',
      `
Claude Code: merges Baton's hooks into .claude/settings.json (your own hooks are kept; a second run
changes nothing) and writes a short Baton section into CLAUDE.md. Each hook calls
\`baton hook claude-code <EVENT>\` through the absolute path of this baton.
Codex: a [mcp_servers.baton] block in .codex/config.toml (between markers). Cursor: mcpServers.baton
in .cursor/mcp.json. Both run \`baton mcp\` for this workspace and get the Baton section of AGENTS.md.

Examples:
  baton setup claude-code
  baton setup codex
  baton setup cursor`,
    )
    .action(runs(async (ctx, client: string) => (await loadCommand('setup')).setup(ctx, client)));
}

/** `baton hook claude-code <EVENT>`: what the installed hooks run; never blocks the agent. */
export function registerHook(program: Command): void {
  const hook = program.command('hook').description('answer a client hook (installed by `baton setup`)');
  hook
    .command('claude-code')
    .description("read Claude Code's hook JSON on stdin and answer with its hook JSON; any failure: one stderr line, exit 0")
    .argument('<event>', 'SessionStart, UserPromptSubmit, PostToolUse, SubagentStart, SubagentStop, Stop or SessionEnd')
    .addHelpText(
      'after',
      `
SessionStart starts (or continues) the Baton session derived from Claude Code's session_id and
answers with a brief: display name, claimed work unit and last checkpoint, next action, unread
signals. PostToolUse / UserPromptSubmit deliver new signals once. SubagentStart / SubagentStop record
subagents on the session's task. Stop heartbeats; SessionEnd ends the session.

Examples:
  echo '{"session_id":"abc","hook_event_name":"SessionStart","source":"startup","cwd":"'$PWD'"}' | baton hook claude-code SessionStart`,
    )
    .action(async (event: string, _options: unknown, command: Command) => {
      await (await loadCommand('hook-claude-code')).hookClaudeCode(command, event);
    });
}

/** `baton mcp`: Baton's tools for any MCP client (Codex, Cursor, Claude Code, …), over stdio. */
export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('serve Baton over MCP (stdio): status, claim, checkpoint, finish, task_transition, send_signal, inbox, orchestrate_status')
    .option('--client <type>', 'the client type recorded on the session it starts (claude-code, codex, gemini, generic)')
    .addHelpText(
      'after',
      `
Bound to one session: --session / BATON_SESSION, else a session started on the first tool call and
kept for the server's life. Every tool returns the envelope the matching CLI command prints.

Examples:
  baton mcp
  baton --session Planck mcp --client codex`,
    )
    .action(async (options: { client?: string }, command: Command) => {
      const version = program.version() ?? 'unknown';
      await runCommand(command, async (ctx) => (await loadCommand('mcp')).mcp(ctx, options, version));
    });
}
