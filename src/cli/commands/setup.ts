import { invalidInput } from '../../errors.js';
import { setupClaudeCode } from '../../integrations/claude-code/setup.js';
import { currentInvocation } from '../../integrations/invocation.js';
import type { CommandContext } from '../context.js';
import { ClientSetupEnvelope } from '../envelopes-integrations.js';

export const SETUP_CLIENTS = ['claude-code'] as const;

/** `baton setup <client>` (and its alias `hooks install claude-code`): client configuration, nothing appended. */
export async function setup(ctx: CommandContext, client: string): Promise<void> {
  const invocation = currentInvocation();
  const workspace = await ctx.workspace();
  if (client !== 'claude-code') throw invalidInput(`must be one of ${SETUP_CLIENTS.join(', ')}, got "${client}"`, 'client');
  const result = setupClaudeCode(workspace, invocation.words);
  if (invocation.warning !== undefined) ctx.output.warn(invocation.warning);
  ctx.output.emit(
    ClientSetupEnvelope,
    { v: 1, type: 'client_setup', generated_at: ctx.now, client, ...result, warnings: invocation.warning !== undefined ? [invocation.warning] : [] },
    (e) =>
      [
        e.changed ? `set up ${e.client} in ${workspace}: ${e.files.join(', ')}` : `${e.client} is already set up in ${workspace} (nothing changed)`,
        ...e.hooks.map((h) => `  ${h.event.padEnd(16)} ${h.command}`),
      ].join('\n'),
  );
}
