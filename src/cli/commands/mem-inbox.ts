import { readInbox } from '../../coordination/inbox.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../coordination-env.js';
import { InboxEnvelope } from '../envelopes-coordination.js';

export async function memInbox(ctx: CommandContext, options: Record<string, string | boolean | undefined>): Promise<void> {
  const str = (key: string): string | undefined => (typeof options[key] === 'string' ? (options[key] as string) : undefined);
  const env = await coordinationEnv(ctx);
  const view = await readInbox(env, {
    ...(str('for') !== undefined ? { for: str('for') } : {}),
    ...(str('thread') !== undefined ? { thread: str('thread') } : {}),
    ...(str('intent') !== undefined ? { intent: str('intent')!.split(',').map((s) => s.trim()) as 'INFO'[] } : {}),
    ...(str('wu') !== undefined ? { wu: str('wu') } : {}),
    mark: options['mark'] !== false,
    all: options['all'] === true,
  });
  ctx.output.emit(InboxEnvelope, view, (v) => {
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
