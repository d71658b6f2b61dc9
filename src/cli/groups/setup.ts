import type { Command } from 'commander';
import { loadCommand } from '../command-modules.js';
import { runs } from '../run-command.js';

/** `baton setup <client>`: wire an agent client to Baton (hooks, MCP configuration, instructions). */
export function registerSetup(program: Command): void {
  program
    .command('setup')
    .description(
      'wire an agent client to Baton: claude-code (hooks, .mcp.json, CLAUDE.md), codex or cursor (MCP server + AGENTS.md), git-hooks (pre-commit guard, post-commit anchor)',
    )
    .argument('<client>', 'claude-code, codex, cursor or git-hooks')
    .option('--local', "claude-code: the hooks call this machine's baton from .claude/settings.local.json (git-ignored)")
    .option('--anchor', "git-hooks: also a post-commit hook that anchors the log's head on refs/baton/anchors after each commit")
    .addHelpText(
      'after',
      `
Claude Code: merges Baton's hooks into .claude/settings.json (your own hooks are kept; a second run
changes nothing), registers the MCP server "baton" in .mcp.json (your other servers are kept) and
writes a short Baton section into CLAUDE.md. These are the team's files, so they call \`baton\`
when it is on PATH, else \`npx --yes --package baton-state baton\`: never a path of this machine.
With --local the hooks go to .claude/settings.local.json instead, calling the absolute path of this
baton (setup makes git ignore that file). Run in a linked git worktree, it sets up the main
checkout and writes into the worktree the files git does not check out there.
Codex: a [mcp_servers.baton] block in .codex/config.toml (between markers). Cursor: mcpServers.baton
in .cursor/mcp.json. Both run \`baton mcp\` for this workspace and get the Baton section of AGENTS.md.
git-hooks: a pre-commit hook (where core.hooksPath says, else .git/hooks) running \`baton guard
--staged\`: a commit staging a path another live holder reserves is refused; an existing pre-commit
hook is kept and run first; BATON_GUARD=off skips the check and records the skip. With --anchor,
a post-commit hook too: \`baton log anchor --quiet || true\` records the log's head on
refs/baton/anchors after each commit (baton log verify checks the log against it); it never fails
a commit, and an existing post-commit hook is kept and run first.

Examples:
  baton setup claude-code
  baton setup claude-code --local
  baton setup codex
  baton setup cursor
  baton setup git-hooks
  baton setup git-hooks --anchor`,
    )
    .action(runs(async (ctx, client: string, options: { local?: boolean; anchor?: boolean }) => (await loadCommand('setup')).setup(ctx, client, options)));
}

/** `baton hook claude-code <EVENT>`: what the installed hooks run; never blocks the agent. */
export function registerHook(program: Command): void {
  const hook = program.command('hook').description('answer a client hook (installed by `baton setup`)');
  hook
    .command('claude-code')
    .description("read Claude Code's hook JSON on stdin and answer with its hook JSON; any failure: one stderr line, exit 0")
    .argument('<event>', 'SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, SubagentStart, SubagentStop, Stop or SessionEnd')
    .addHelpText(
      'after',
      `
SessionStart starts (or continues) the Baton session derived from Claude Code's session_id and
answers with a brief: display name, claimed work unit and last checkpoint, next action, unread
signals. PreToolUse (Edit, Write, MultiEdit, NotebookEdit) denies a write to a path another live
holder's claim reserves (baton guard). PostToolUse / UserPromptSubmit deliver new signals once.
SubagentStart / SubagentStop record subagents on the session's task. Stop heartbeats; SessionEnd
ends the session.

Examples:
  echo '{"session_id":"abc","hook_event_name":"SessionStart","source":"startup","cwd":"'$PWD'"}' | baton hook claude-code SessionStart`,
    )
    .action(async (event: string, _options: unknown, command: Command) => {
      // PreToolUse runs before every edit: its own small bundle, not the other events' code.
      if (event === 'PreToolUse') await (await loadCommand('hook-pre-tool-use')).hookPreToolUse(command);
      else await (await loadCommand('hook-claude-code')).hookClaudeCode(command, event);
    });
}

/** `baton mcp`: Baton's tools for any MCP client (Codex, Cursor, Claude Code, …), over stdio. */
export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description(
      'serve Baton over MCP (stdio): status, wu_list, roster, claim, checkpoint, finish, return, release, task_create, task_transition, send_signal, inbox, orchestrate_status, check_paths',
    )
    .option('--client <type>', 'the client type recorded on the session it starts (claude-code, codex, gemini, generic)')
    .addHelpText(
      'after',
      `
Bound to one session: --session / BATON_SESSION, else a session started on the first tool call,
kept for the server's life and ended when the client disconnects (stdin closed, SIGTERM). Every tool returns the envelope the matching CLI command prints. A
configuration it refuses at start-up (an empty BATON_SESSION, a bad --dir) is one stderr line, and
every tool call answers that error.

Examples:
  baton mcp
  baton --session Planck mcp --client codex`,
    )
    .action(async (options: { client?: string }, command: Command) => {
      await (await loadCommand('mcp')).mcp(command, options, program.version() ?? 'unknown');
    });
}
