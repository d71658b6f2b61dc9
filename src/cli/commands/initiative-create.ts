import { createInitiative } from '../../work-units/definitions.js';
import type { CommandContext } from '../context.js';
import { InitiativeEnvelope } from '../../app/envelopes/work-units.js';
import { workUnitsEnv } from '../../app/work-units-env.js';

export async function initiativeCreate(ctx: CommandContext, initiative: string, options: { title?: string; slug?: string; lanes?: string }): Promise<void> {
  const result = await createInitiative(await workUnitsEnv(ctx), { initiative, ...options });
  ctx.output.emit(
    InitiativeEnvelope,
    { v: 1, type: 'initiative', generated_at: ctx.now, ...result },
    (e) => `${e.initiative} ${e.created ? 'created' : 'already exists (unchanged)'}: ${e.title}${e.lanes.length > 0 ? ` — lanes ${e.lanes.join(', ')}` : ''}`,
  );
}
