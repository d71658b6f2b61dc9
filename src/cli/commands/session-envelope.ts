import type { SessionEnvelope } from '../../app/commands/sessions.js';
import type { CommandContext } from '../context.js';
import { OrchestrationSessionEnvelope } from '../../app/envelopes/coordination.js';

/** Print tasks.md's `orchestration_session` for one session (src/app/commands/sessions.ts builds it). */
export function printSession(ctx: CommandContext, envelope: SessionEnvelope, humanTail: string[] = []): void {
  ctx.output.emit(OrchestrationSessionEnvelope, envelope, (e) =>
    [
      `${e.session.baton.display_name}  ${e.session.id}  ${e.session.status}${e.session.baton.agent_identity ? `  identity ${e.session.baton.agent_identity}` : ''}`,
      ...humanTail,
    ].join('\n'),
  );
}
