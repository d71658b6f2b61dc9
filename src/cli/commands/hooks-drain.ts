import { drainSession } from '../../app/commands/delivery.js';
import type { CommandContext } from '../context.js';
import { HookDrainEnvelope } from '../../app/envelopes/coordination.js';

/**
 * `baton hooks drain --session X`: src/app/commands/delivery.ts, printed. Human mode prints nothing
 * at all when nothing is pending: the hook script relies on empty output.
 */
export async function hooksDrain(ctx: CommandContext): Promise<void> {
  await drainSession(ctx, {
    session: ctx.session,
    show: (drained) => {
      if (ctx.output.mode === 'human') {
        if (drained.prompts.length > 0) ctx.output.line(drained.prompts.join('\n\n'));
        return;
      }
      ctx.output.emit(HookDrainEnvelope, drained.envelope, () => '');
    },
  });
}
