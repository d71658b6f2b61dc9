import { updateInitiative, type InitiativeUpdateInput } from '../../work-units/initiative-update.js';
import type { CommandContext } from '../context.js';
import { InitiativeUpdateEnvelope } from '../../app/envelopes/lumenflow.js';
import { workUnitsEnv } from '../../app/work-units-env.js';

export async function initiativeUpdate(ctx: CommandContext, input: InitiativeUpdateInput): Promise<void> {
  const result = await updateInitiative(await workUnitsEnv(ctx), input);
  ctx.output.emit(InitiativeUpdateEnvelope, { v: 1, type: 'initiative_update', generated_at: ctx.now, ...result }, (e) =>
    e.result === 'updated' ? `${e.initiative} updated: ${e.changed_fields.join(', ')}` : `${e.initiative} unchanged`,
  );
}
