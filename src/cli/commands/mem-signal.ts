import { sendSignal } from '../../coordination/send.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../coordination-env.js';
import { SignalSentEnvelope } from '../envelopes-coordination.js';

export async function memSignal(ctx: CommandContext, message: string, options: Record<string, string | boolean | undefined>): Promise<void> {
  const str = (key: string): string | undefined => (typeof options[key] === 'string' ? (options[key] as string) : undefined);
  const env = await coordinationEnv(ctx);
  const result = await sendSignal(env, {
    message,
    ...(str('to') !== undefined ? { to: str('to')!.split(',') } : {}),
    ...(str('wu') !== undefined ? { wu: str('wu') } : {}),
    ...(str('initiative') !== undefined ? { initiative: str('initiative') } : {}),
    ...(str('lane') !== undefined ? { lane: str('lane') } : {}),
    ...(str('role') !== undefined ? { role: str('role') } : {}),
    ...(str('intent') !== undefined ? { intent: str('intent') as 'INFO' } : {}),
    ...(options['requiresAck'] === true ? { requires_ack: true } : {}),
    ...(str('replyTo') !== undefined ? { reply_to: str('replyTo') } : {}),
    ...(str('thread') !== undefined ? { thread: str('thread') } : {}),
    ...(str('interruptClass') !== undefined ? { interrupt_class: str('interruptClass') as 'priority' } : {}),
    ...(str('idempotencyKey') !== undefined ? { idempotency_key: str('idempotencyKey') } : {}),
    ...(str('workspaceId') !== undefined ? { workspace_id: str('workspaceId') } : {}),
  });
  ctx.output.emit(
    SignalSentEnvelope,
    {
      v: 1,
      type: 'signal_sent',
      generated_at: ctx.now,
      seq: result.seq,
      deduplicated: result.deduplicated,
      signal: result.signal,
      promoted_receipts: result.promoted_receipts,
      hook_enqueued: result.hook_enqueued,
    },
    (e) => {
      const to = result.recipient_names.map((r) => (r.display_name ? `${r.display_name} (${r.identity})` : r.identity)).join(', ');
      return [
        `${e.deduplicated ? 'already sent' : 'sent'} ${e.signal.signal_id} (${e.signal.intent}, ${e.signal.interrupt_class}) ${to === '' ? 'to everyone (broadcast)' : `to ${to}`} in ${e.signal.thread_id}`,
        ...(e.promoted_receipts > 0 ? [`recorded ${e.promoted_receipts} ${e.signal.intent === 'AGREE' ? 'acked' : 'rejected'} receipt(s)`] : []),
      ].join('\n');
    },
  );
}
