import { resumeSession, runResume } from '../../app/commands/task-views.js';
import type { CommandContext } from '../context.js';
import { OrchestrationResumeEnvelope } from '../../app/envelopes/tasks.js';

/** `baton resume <session-id> [--execute]` (tasks.md §10.6): src/app/commands/task-views.ts, printed; then run when asked. */
export async function resume(ctx: CommandContext, given: string, flags: { execute?: boolean }): Promise<number> {
  const execute = flags.execute === true;
  const envelope = await resumeSession(ctx, { session_id: given, execute });
  ctx.output.emit(OrchestrationResumeEnvelope, envelope, (e) =>
    [e.description, `Resume: ${e.baton.resume_command}`, ...(execute ? [] : ['(pass --execute to invoke this command directly)'])].join('\n'),
  );
  return execute ? runResume(envelope) : 0;
}
