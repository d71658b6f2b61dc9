import { createInitiativeEnvelope } from '../../app/commands/work-unit-definitions.js';
import type { CommandContext } from '../context.js';
import { InitiativeEnvelope } from '../../app/envelopes/work-units.js';
import { splitList } from './wu-create.js';

/** `baton initiative create INIT …`: src/app/commands/work-unit-definitions.ts, printed. */
export async function initiativeCreate(ctx: CommandContext, initiative: string, options: { title?: string; slug?: string; lanes?: string }): Promise<void> {
  ctx.output.nameArguments({ initiative: 'INIT' });
  const envelope = await createInitiativeEnvelope(ctx, { initiative, title: options.title, slug: options.slug, lanes: splitList(options.lanes) });
  ctx.output.emit(
    InitiativeEnvelope,
    envelope,
    (e) => `${e.initiative} ${e.created ? 'created' : 'already exists (unchanged)'}: ${e.title}${e.lanes.length > 0 ? ` — lanes ${e.lanes.join(', ')}` : ''}`,
  );
}
