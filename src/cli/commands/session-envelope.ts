import type { SessionStatus } from '../../../events/coordination/identities.js';
import type { SessionRecord } from '../../../projections/coordination/state.js';
import type { CommandContext } from '../context.js';
import { OrchestrationSessionEnvelope } from '../envelopes-coordination.js';

/** Print tasks.md's `orchestration_session` for one session (no tasks yet: the tasks issue adds them). */
export function emitSession(ctx: CommandContext, workspace: string, session: SessionRecord, status: SessionStatus, humanTail: string[] = []): void {
  const optional = <K extends string>(key: K, value: string | null): Partial<Record<K, string>> => (value === null ? {} : ({ [key]: value } as Record<K, string>));
  ctx.output.emit(
    OrchestrationSessionEnvelope,
    {
      v: 1,
      type: 'orchestration_session',
      generated_at: ctx.now,
      generatedAt: ctx.now,
      installDir: workspace,
      session: {
        id: session.session_id,
        installDir: workspace,
        createdAt: Date.parse(session.created_at),
        updatedAt: Date.parse(session.updated_at),
        ...optional('goal', session.goal),
        ...optional('branch', session.branch),
        ...optional('worktree', session.worktree),
        status,
        ...(session.finished_at !== null ? { finishedAt: Date.parse(session.finished_at) } : {}),
        baton: {
          display_name: session.display_name,
          ...optional('agent_identity', session.agent_identity),
          ...optional('role', session.role),
          ...optional('wu_id', session.wu_id),
          ...optional('lane', session.lane),
          ...optional('client_type', session.client_type),
          last_heartbeat_at: session.last_heartbeat_at,
          stored_status: session.stored_status,
        },
      },
      tasks: [],
      baton: { subagents: [] },
    },
    (e) =>
      [
        `${e.session.baton.display_name}  ${e.session.id}  ${e.session.status}${e.session.baton.agent_identity ? `  identity ${e.session.baton.agent_identity}` : ''}`,
        ...humanTail,
      ].join('\n'),
  );
}
