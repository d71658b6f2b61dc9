import { createTaskEnvelope } from '../../app/commands/tasks.js';
import type { CommandContext } from '../context.js';
import { printTask } from './task-emit.js';

/** `task create`'s flags, as commander gives them. */
export interface TaskCreateFlags {
  label?: string;
  parent?: string;
  subagentKind?: string;
  activeForm?: string;
  state?: string;
  idempotencyKey?: string;
}

/** `baton task create` (tasks.md §6): src/app/commands/tasks.ts, printed. */
export async function taskCreate(ctx: CommandContext, flags: TaskCreateFlags): Promise<void> {
  const { label, parent, subagentKind, activeForm, state, idempotencyKey } = flags;
  printTask(
    ctx,
    await createTaskEnvelope(ctx, { label, parent, subagent_kind: subagentKind, active_form: activeForm, state, idempotency_key: idempotencyKey }),
  );
}
