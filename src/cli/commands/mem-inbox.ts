import { readInboxEnvelope } from '../../app/commands/inbox.js';
import { InboxEnvelope } from '../../validators.generated.js';
import type { CommandContext } from '../context.js';

/** `baton mem inbox`: src/app/commands/inbox.ts, printed (the flags become the input's fields). */
export async function memInbox(ctx: CommandContext, options: Record<string, string | boolean | undefined>): Promise<void> {
  const str = (key: string): string | undefined => (typeof options[key] === 'string' ? (options[key] as string) : undefined);
  // `mark` is on unless --no-mark says otherwise; the other fields are their flags (`for` → --for).
  ctx.output.nameArguments({ mark: '--no-mark' });
  const envelope = await readInboxEnvelope(ctx, {
    ...(str('for') !== undefined ? { for: str('for') } : {}),
    ...(str('thread') !== undefined ? { thread: str('thread') } : {}),
    ...(str('intent') !== undefined
      ? {
          intent: str('intent')!
            .split(',')
            .map((s) => s.trim()) as 'INFO'[],
        }
      : {}),
    ...(str('wu') !== undefined ? { wu: str('wu') } : {}),
    mark: options['mark'] !== false,
    all: options['all'] === true,
  });
  await ctx.output.emitCompiled(InboxEnvelope, envelope, (v) => {
    if (v.signals.length === 0)
      return v.reader_identity === null ? 'No signals.' : `No ${options['all'] === true ? '' : 'unread '}signals for ${v.reader_identity}.`;
    return v.signals
      .map((s) => {
        const sig = s as typeof s & { sender_identity: string; intent: string; message: string; thread_id: string; recipients: string[] };
        const from = s.sender_display_name ? `${sig.sender_identity} (${s.sender_display_name})` : sig.sender_identity;
        return `${s.signal_id}  ${sig.intent}  from ${from}${sig.recipients.length === 0 ? '  [broadcast]' : ''}${s.read ? `  [${String(s.delivery_state)}]` : ''}\n    ${sig.message}`;
      })
      .join('\n');
  });
}
