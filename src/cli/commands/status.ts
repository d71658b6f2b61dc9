import { readStatus } from '../../app/commands/status.js';
import { OrchestrationStatusEnvelope } from '../../tasks/validators.generated.js';
import type { CommandContext } from '../context.js';
import { humanStatus } from './task-human.js';

/** `baton status`: src/app/commands/status.ts, printed. */
export async function status(ctx: CommandContext): Promise<void> {
  await ctx.output.emitCompiled(OrchestrationStatusEnvelope, await readStatus(ctx), humanStatus);
}
