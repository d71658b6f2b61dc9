import { renderPrompt, watchSignals } from '../../coordination/delivery.js';
import { invalidInput } from '../../errors.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../../app/coordination-env.js';
import { SignalReceivedEnvelope } from '../../app/envelopes/coordination.js';

/**
 * `mem watch --session X [--once]`. The watcher is not the session: it records receipts as
 * `system` (or BATON_AGENT_IDENTITY), so it never keeps a dead agent looking alive.
 */
export async function memWatch(ctx: CommandContext, options: { once?: boolean }): Promise<void> {
  const target = ctx.session;
  if (target === undefined) throw invalidInput('names the session to deliver to (session id, agent identity or display name); it is required', '--session');
  const env = await coordinationEnv(ctx, { actAsSession: false });
  const fixed = ctx.env['BATON_NOW'];
  const clock = (): string => (fixed !== undefined && fixed !== '' ? ctx.now : new Date().toISOString());
  const handle = await watchSignals(env, target, {
    once: options.once === true,
    clock,
    onDelivery: (d) =>
      ctx.output.emit(
        SignalReceivedEnvelope,
        {
          v: 1,
          type: 'signal_received',
          generated_at: d.at,
          session_id: d.session_id,
          reader_identity: d.reader_identity,
          latency_ms: d.latency_ms,
          signal: d.signal,
          reply_commands: d.reply_commands,
        },
        () => renderPrompt(d),
      ),
  });
  await handle.done;
}
