import { invalidInput } from '../../errors.js';
import { setupClaudeCodeCheckouts, type WorktreeSetup } from '../../integrations/claude-code/checkouts.js';
import { currentInvocation } from '../../integrations/invocation.js';
import { setupGitHooks } from '../../integrations/git-hooks.js';
import { setupCodex, setupCursor } from '../../integrations/mcp-clients.js';
import { shellWord } from '../../integrations/claude-code/setup.js';
import type { CommandContext } from '../context.js';
import { ClientSetupEnvelope } from '../../app/envelopes/integrations.js';

export const SETUP_CLIENTS = ['claude-code', 'codex', 'cursor', 'git-hooks'] as const;

export interface SetupFlags {
  local?: boolean;
  anchor?: boolean;
}

/** `baton setup <client>` (and its alias `hooks install claude-code`): client configuration, nothing appended. */
export async function setup(ctx: CommandContext, client: string, flags: SetupFlags = {}): Promise<void> {
  const workspace = await ctx.workspace();
  if (!(SETUP_CLIENTS as readonly string[]).includes(client)) throw invalidInput(`must be one of ${SETUP_CLIENTS.join(', ')}, got "${client}"`, 'client');
  if (flags.local === true && client !== 'claude-code')
    throw invalidInput('is for claude-code only (Claude Code reads .claude/settings.local.json)', '--local');
  if (flags.anchor === true && client !== 'git-hooks') throw invalidInput('is for git-hooks only (a post-commit hook anchoring the log)', '--anchor');
  const result =
    client === 'claude-code'
      ? claudeCode(ctx, workspace, flags)
      : client === 'git-hooks'
        ? setupGitHooks(workspace, ctx.env, { anchor: flags.anchor === true })
        : mcpClient(workspace, client);
  for (const warning of result.warnings) ctx.output.warn(warning);
  ctx.output.emit(ClientSetupEnvelope, { v: 1, type: 'client_setup', generated_at: ctx.now, client, ...result }, (e) =>
    [
      e.changed ? `set up ${e.client} in ${workspace}: ${e.files.join(', ')}` : `${e.client} is already set up in ${workspace} (nothing changed)`,
      ...e.hooks.map((h) => `  ${h.event.padEnd(16)} ${h.command}`),
      ...(e.mcp_config !== undefined ? [`  MCP server "baton": ${JSON.stringify(e.mcp_config)}`] : []),
      ...(e.worktree !== undefined ? worktreeLines(e.worktree) : []),
      ...(e.notes ?? []),
    ].join('\n'),
  );
}

function claudeCode(ctx: CommandContext, workspace: string, flags: SetupFlags) {
  const explicitDir = ctx.flags.dir !== undefined || ctx.env['BATON_DIR'] !== undefined;
  const { notes, ...result } = setupClaudeCodeCheckouts({ workspace, explicitDir, local: flags.local === true, env: ctx.env });
  return { ...result, ...(notes.length > 0 ? { notes } : {}) };
}

function mcpClient(workspace: string, client: string) {
  const invocation = currentInvocation();
  const section = invocation.words.map(shellWord).join(' ');
  const configured = client === 'codex' ? setupCodex(workspace, invocation.words, section) : setupCursor(workspace, invocation.words, section);
  return { ...configured, hooks: [], warnings: invocation.warning !== undefined ? [invocation.warning] : [] };
}

/** What a linked worktree got: its own files, or none because git checks them out there. */
function worktreeLines(w: WorktreeSetup): string[] {
  const committed =
    w.committed_in_main.length > 0 ? `committed in the main checkout: ${w.committed_in_main.join(', ')}` : 'none committed in the main checkout';
  const lines = [`worktree ${w.path} (${committed}):`];
  if (w.checked_out.length > 0) lines.push(`  from git (committed, checked out here; nothing written): ${w.checked_out.join(', ')}`);
  if (w.written.length > 0) lines.push(`  ${w.changed ? 'written here' : 'already here'} (git does not give them to this worktree): ${w.written.join(', ')}`);
  return lines;
}
