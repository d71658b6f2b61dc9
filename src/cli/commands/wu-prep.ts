import { prepWorkUnit } from '../../app/commands/work-unit-prep.js';
import type { CommandContext } from '../context.js';
import { WuPrepEnvelope } from '../../app/envelopes/coordination.js';

/** `baton wu prep WU`: src/app/commands/work-unit-prep.ts, printed. */
export async function wuPrep(ctx: CommandContext, wu: string, options: { allowUnreadSignals?: boolean; reason?: string }): Promise<void> {
  ctx.output.nameArguments({ wu: 'WU' });
  const envelope = await prepWorkUnit(ctx, { wu, allow_unread_signals: options.allowUnreadSignals, reason: options.reason });
  ctx.output.emit(WuPrepEnvelope, envelope, (e) => `${e.wu_id}: prep passed\n${e.checks.map((c) => `  ${c.name}: ${c.detail}`).join('\n')}`);
}
