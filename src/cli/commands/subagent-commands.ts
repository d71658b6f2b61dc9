import { finishSubagentEnvelope, startSubagentEnvelope, type SubagentEnvelope } from '../../app/commands/subagents.js';
import type { CommandContext } from '../context.js';
import { OrchestrationSubagentEnvelope } from '../../app/envelopes/tasks.js';
import { humanSubagent } from './task-human.js';

/** `baton subagent start | finish` (tasks.md §8): src/app/commands/subagents.ts, printed. */
function print(ctx: CommandContext, envelope: SubagentEnvelope): void {
  ctx.output.emit(OrchestrationSubagentEnvelope, envelope, humanSubagent);
}

/** `subagent start`'s flags, as commander gives them. */
export interface SubagentStartFlags {
  kind?: string;
  rootTask?: string;
  idempotencyKey?: string;
}

export async function subagentStart(ctx: CommandContext, flags: SubagentStartFlags): Promise<void> {
  print(ctx, await startSubagentEnvelope(ctx, { kind: flags.kind, root_task: flags.rootTask, idempotency_key: flags.idempotencyKey }));
}

export async function subagentFinish(ctx: CommandContext, id: string): Promise<void> {
  print(ctx, await finishSubagentEnvelope(ctx, { subagent: id }));
}
