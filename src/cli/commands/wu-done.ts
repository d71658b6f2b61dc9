import { finishWorkUnit } from '../../app/commands/work-units.js';
import type { CommandContext } from '../context.js';
import { WuDoneEnvelope } from '../../app/envelopes/work-units.js';

export async function wuDone(ctx: CommandContext, wuId: string): Promise<void> {
  ctx.output.nameArguments({ wu: 'WU' });
  ctx.output.emit(
    WuDoneEnvelope,
    await finishWorkUnit(ctx, { wu: wuId }),
    (e) => `${e.wu_id} done — stamp ${e.stamp_path}${e.already_exists ? ' (already existed)' : ''}`,
  );
}
