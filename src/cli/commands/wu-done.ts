import { doneWu } from '../../work-units/stamps.js';
import type { CommandContext } from '../context.js';
import { WuDoneEnvelope } from '../envelopes-work-units.js';
import { workUnitsEnv } from '../work-units-env.js';

export async function wuDone(ctx: CommandContext, wuId: string): Promise<void> {
  const result = await doneWu(await workUnitsEnv(ctx), wuId);
  ctx.output.emit(WuDoneEnvelope, { v: 1, type: 'wu_done', generated_at: ctx.now, ...result }, (e) =>
    `${e.wu_id} done — stamp ${e.stamp_path}${e.already_exists ? ' (already existed)' : ''}`,
  );
}
