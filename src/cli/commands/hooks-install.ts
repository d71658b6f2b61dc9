import { installClaudeCodeHook } from '../../coordination/hooks-install.js';
import { invalidInput } from '../../errors.js';
import type { CommandContext } from '../context.js';
import { HooksInstalledEnvelope } from '../envelopes-coordination.js';

export async function hooksInstall(ctx: CommandContext, client: string): Promise<void> {
  if (client !== 'claude-code') throw invalidInput(`must be claude-code (other clients use \`baton mem watch\`), got "${client}"`, 'client');
  const result = installClaudeCodeHook(await ctx.workspace());
  ctx.output.emit(HooksInstalledEnvelope, { v: 1, type: 'hooks_installed', generated_at: ctx.now, client: 'claude-code', ...result }, (e) =>
    e.changed ? `installed the Claude Code hook: ${e.files.join(', ')}` : 'the Claude Code hook is already installed (nothing changed)',
  );
}
