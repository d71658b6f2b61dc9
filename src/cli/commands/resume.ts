import { checkId } from '../../../projections/tasks/refusal.js';
import { resumeEnvelope } from '../../../projections/tasks/views.js';
import { loadTasks, viewContext } from '../../tasks/env.js';
import { refusalsAsErrors } from '../../tasks/refusals.js';
import type { CommandContext } from '../context.js';
import { OrchestrationResumeEnvelope } from '../../app/envelopes/tasks.js';
import { tasksEnv } from '../../app/tasks-env.js';

/** `baton resume <session-id> [--execute]` (tasks.md §10.6). */
export async function resume(ctx: CommandContext, given: string, flags: { execute?: boolean }): Promise<number> {
  const id = await ctx.sessionIdFor(given);
  await refusalsAsErrors(() => checkId('session', id));
  const env = await tasksEnv(ctx);
  const { state } = await loadTasks(env);
  const execute = flags.execute === true;
  const envelope = await refusalsAsErrors(() => resumeEnvelope(state, viewContext(env), id, execute));
  ctx.output.emit(OrchestrationResumeEnvelope, envelope, (e) =>
    [e.description, `Resume: ${e.baton.resume_command}`, ...(execute ? [] : ['(pass --execute to invoke this command directly)'])].join('\n'),
  );
  if (!execute) return 0;
  const { executeResume, ownBaton } = await import('../../tasks/resume-exec.js');
  return executeResume(ownBaton(envelope.command));
}
