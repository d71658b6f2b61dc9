import { invalidInput } from '../../errors.js';
import { setupClaudeCode } from '../../integrations/claude-code/setup.js';
import { currentInvocation } from '../../integrations/invocation.js';
import { setupCodex, setupCursor } from '../../integrations/mcp-clients.js';
import { shellWord } from '../../integrations/claude-code/setup.js';
import type { CommandContext } from '../context.js';
import { ClientSetupEnvelope } from '../../app/envelopes/integrations.js';

export const SETUP_CLIENTS = ['claude-code', 'codex', 'cursor'] as const;

/** `baton setup <client>` (and its alias `hooks install claude-code`): client configuration, nothing appended. */
export async function setup(ctx: CommandContext, client: string): Promise<void> {
  const invocation = currentInvocation();
  const workspace = await ctx.workspace();
  if (!(SETUP_CLIENTS as readonly string[]).includes(client)) throw invalidInput(`must be one of ${SETUP_CLIENTS.join(', ')}, got "${client}"`, 'client');
  const section = invocation.words.map(shellWord).join(' ');
  const result =
    client === 'claude-code'
      ? setupClaudeCode(workspace, invocation.words)
      : { ...(client === 'codex' ? setupCodex(workspace, invocation.words, section) : setupCursor(workspace, invocation.words, section)), hooks: [] };
  if (invocation.warning !== undefined) ctx.output.warn(invocation.warning);
  ctx.output.emit(
    ClientSetupEnvelope,
    { v: 1, type: 'client_setup', generated_at: ctx.now, client, ...result, warnings: invocation.warning !== undefined ? [invocation.warning] : [] },
    (e) =>
      [
        e.changed ? `set up ${e.client} in ${workspace}: ${e.files.join(', ')}` : `${e.client} is already set up in ${workspace} (nothing changed)`,
        ...e.hooks.map((h) => `  ${h.event.padEnd(16)} ${h.command}`),
        ...(e.mcp_config !== undefined ? [`  MCP server "baton": ${JSON.stringify(e.mcp_config)}`] : []),
      ].join('\n'),
  );
}
