import { sendSignalEnvelope } from '../../app/commands/signals.js';
import type { CommandContext } from '../context.js';
import { SignalSentEnvelope } from '../../app/envelopes/coordination.js';

/** `baton mem signal <message>`: the flags become the signal's fields (src/app/commands/signals.ts); `--to` is comma-separated. */
export async function memSignal(ctx: CommandContext, message: string, options: Record<string, string | boolean | undefined>): Promise<void> {
  const str = (key: string): string | undefined => (typeof options[key] === 'string' ? (options[key] as string) : undefined);
  ctx.output.nameArguments({ message: 'message' });
  const { envelope, recipient_names } = await sendSignalEnvelope(ctx, {
    message,
    to: str('to')?.split(','),
    wu: str('wu'),
    initiative: str('initiative'),
    lane: str('lane'),
    role: str('role'),
    intent: str('intent'),
    requires_ack: options['requiresAck'] === true ? true : undefined,
    reply_to: str('replyTo'),
    thread: str('thread'),
    interrupt_class: str('interruptClass'),
    idempotency_key: str('idempotencyKey'),
    workspace_id: str('workspaceId'),
  });
  ctx.output.emit(SignalSentEnvelope, envelope, (e) => {
    const to = recipient_names.map((r) => (r.display_name ? `${r.display_name} (${r.identity})` : r.identity)).join(', ');
    return [
      `${e.deduplicated ? 'already sent' : 'sent'} ${e.signal.signal_id} (${e.signal.intent}, ${e.signal.interrupt_class}) ${to === '' ? 'to everyone (broadcast)' : `to ${to}`} in ${e.signal.thread_id}`,
      ...(e.promoted_receipts > 0 ? [`recorded ${e.promoted_receipts} ${e.signal.intent === 'AGREE' ? 'acked' : 'rejected'} receipt(s)`] : []),
    ].join('\n');
  });
}
