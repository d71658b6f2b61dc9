import { createWu, type WuCreateInput } from '../../work-units/definitions.js';
import type { CommandContext } from '../context.js';
import { WuDefinitionEnvelope } from '../../app/envelopes/work-units.js';
import { workUnitsEnv } from '../../app/work-units-env.js';

export async function wuCreate(ctx: CommandContext, input: WuCreateInput): Promise<void> {
  const result = await createWu(await workUnitsEnv(ctx), input);
  ctx.output.emit(WuDefinitionEnvelope, { v: 1, type: 'wu_definition', generated_at: ctx.now, ...result }, (e) =>
    e.result === 'unchanged' ? `${e.wu_id} unchanged` : `${e.wu_id} ${e.result}: ${e.changed_fields.join(', ')}`,
  );
}
