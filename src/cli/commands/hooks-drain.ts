import { drainHook, renderPrompt } from '../../coordination/delivery.js';
import { invalidInput } from '../../errors.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../../app/coordination-env.js';
import { HookDrainEnvelope } from '../../app/envelopes/coordination.js';

/** Human mode prints nothing at all when nothing is pending: the hook script relies on empty output. */
export async function hooksDrain(ctx: CommandContext): Promise<void> {
  const target = ctx.session;
  if (target === undefined) throw invalidInput('names the session to drain (session id, agent identity or display name); it is required', '--session');
  const env = await coordinationEnv(ctx, { actAsSession: false });
  await drainHook(env, target, (result) => {
    if (ctx.output.mode === 'human') {
      if (result.events.length > 0) ctx.output.line(result.events.map(renderPrompt).join('\n\n'));
      return;
    }
    ctx.output.emit(
      HookDrainEnvelope,
      {
        v: 1,
        type: 'hook_drain',
        generated_at: ctx.now,
        session_id: result.session_id,
        reader_identity: result.reader_identity,
        events: result.events.map((e) => ({ event: e.event, signal: e.signal, reply_commands: e.reply_commands })),
      },
      () => '',
    );
  });
}
