import { rosterView } from '../../../projections/coordination/roster.js';
import { loadState } from '../../coordination/env.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../../app/coordination-env.js';
import { RosterEnvelope } from '../../app/envelopes/coordination.js';

export async function memRoster(ctx: CommandContext, options: { includeStale?: boolean }): Promise<void> {
  const env = await coordinationEnv(ctx);
  const { state } = await loadState(env);
  ctx.output.emit(RosterEnvelope, rosterView(state, ctx.now, { includeStale: options.includeStale === true }), (v) =>
    v.sessions.length === 0
      ? 'No live sessions.'
      : v.sessions
          .map((s) =>
            [
              s.display_name,
              s.session_id,
              s.agent_identity ?? '-',
              s.role ?? '-',
              s.wu_id ?? '-',
              s.lane ?? '-',
              `${s.status} (last heartbeat ${s.last_heartbeat_at})`,
            ].join('  '),
          )
          .join('\n'),
  );
}
