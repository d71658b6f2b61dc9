import { readInbox } from '../../coordination/inbox.js';
import { InboxEnvelope } from '../../validators.generated.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../coordination-env.js';
import * as storeAccess from '../store-access.js';

/**
 * `baton mem inbox`, a short command (≤ 2 × `node -e 0`): valid input, events and envelope are
 * checked by compiled validators, so it loads neither zod nor `yaml` unless something fails a check;
 * and scripts/bundle-cli.mjs bundles it with the store into one file, so it loads few files.
 */
export async function memInbox(ctx: CommandContext, options: Record<string, string | boolean | undefined>): Promise<void> {
  const str = (key: string): string | undefined => (typeof options[key] === 'string' ? (options[key] as string) : undefined);
  ctx.useCompiledValidation(storeAccess);
  const env = await coordinationEnv(ctx);
  const view = await readInbox(env, {
    ...(str('for') !== undefined ? { for: str('for') } : {}),
    ...(str('thread') !== undefined ? { thread: str('thread') } : {}),
    ...(str('intent') !== undefined ? { intent: str('intent')!.split(',').map((s) => s.trim()) as 'INFO'[] } : {}),
    ...(str('wu') !== undefined ? { wu: str('wu') } : {}),
    mark: options['mark'] !== false,
    all: options['all'] === true,
  });
  await ctx.output.emitCompiled(InboxEnvelope, view, (v) => {
    if (v.signals.length === 0) return v.reader_identity === null ? 'No signals.' : `No ${options['all'] === true ? '' : 'unread '}signals for ${v.reader_identity}.`;
    return v.signals
      .map((s) => {
        const sig = s as typeof s & { sender_identity: string; intent: string; message: string; thread_id: string; recipients: string[] };
        const from = s.sender_display_name ? `${sig.sender_identity} (${s.sender_display_name})` : sig.sender_identity;
        return `${s.signal_id}  ${sig.intent}  from ${from}${sig.recipients.length === 0 ? '  [broadcast]' : ''}${s.read ? `  [${String(s.delivery_state)}]` : ''}\n    ${sig.message}`;
      })
      .join('\n');
  });
}
