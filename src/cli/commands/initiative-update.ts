import { updateInitiativeEnvelope } from '../../app/commands/work-unit-definitions.js';
import type { CommandContext } from '../context.js';
import { InitiativeUpdateEnvelope } from '../../app/envelopes/lumenflow.js';
import { splitList } from './wu-create.js';

/** `initiative update`'s flags (`--lanes`, `--wus`: comma-separated lists). */
export interface InitiativeUpdateFlags {
  title?: string;
  slug?: string;
  status?: string;
  lanes?: string;
  wus?: string;
  priority?: string;
  owner?: string;
  created?: string;
  targetDate?: string;
}

/** `baton initiative update INIT …`: src/app/commands/work-unit-definitions.ts, printed. */
export async function initiativeUpdate(ctx: CommandContext, initiative: string, flags: InitiativeUpdateFlags): Promise<void> {
  ctx.output.nameArguments({ initiative: 'INIT', fields: 'flags' });
  const { lanes, wus, targetDate, ...text } = flags;
  const input = { initiative, ...text, lanes: splitList(lanes), wus: splitList(wus), target_date: targetDate };
  ctx.output.emit(InitiativeUpdateEnvelope, await updateInitiativeEnvelope(ctx, input), (e) =>
    e.result === 'updated' ? `${e.initiative} updated: ${e.changed_fields.join(', ')}` : `${e.initiative} unchanged`,
  );
}
