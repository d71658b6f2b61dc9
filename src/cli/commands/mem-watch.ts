import { watchSession } from '../../app/commands/delivery.js';
import type { CommandContext } from '../context.js';
import { SignalReceivedEnvelope } from '../../app/envelopes/coordination.js';

/**
 * `mem watch --session X [--once]`: the global --session names the session to deliver to
 * (src/app/commands/delivery.ts); each delivery is printed as it comes.
 */
export async function memWatch(ctx: CommandContext, options: { once?: boolean }): Promise<void> {
  await watchSession(ctx, {
    session: ctx.session,
    once: options.once,
    show: (d) => ctx.output.emit(SignalReceivedEnvelope, d.envelope, () => d.prompts.join('\n\n')),
  });
}
