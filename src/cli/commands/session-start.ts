import { startSessionEnvelope } from '../../app/commands/sessions.js';
import type { CommandContext } from '../context.js';
import { printSession } from './session-envelope.js';

/** `baton session start`: the flags become the session's fields (src/app/commands/sessions.ts). */
export async function sessionStart(ctx: CommandContext, options: Record<string, string | undefined>): Promise<void> {
  const envelope = await startSessionEnvelope(ctx, {
    agent_identity: options['agentIdentity'],
    role: options['role'],
    wu: options['wu'],
    lane: options['lane'],
    goal: options['goal'],
    branch: options['branch'],
    worktree: options['worktree'],
    client: options['client'],
  });
  printSession(ctx, envelope, [`export BATON_SESSION=${envelope.session.id}`]);
}
