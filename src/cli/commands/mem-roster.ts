import { readRoster } from '../../app/commands/coordination-views.js';
import type { CommandContext } from '../context.js';
import { table } from '../table.js';
import { RosterEnvelope } from '../../app/envelopes/coordination.js';

/** `baton mem roster [--include-stale]`: src/app/commands/coordination-views.ts, printed. */
export async function memRoster(ctx: CommandContext, options: { includeStale?: boolean }): Promise<void> {
  ctx.output.emit(RosterEnvelope, await readRoster(ctx, { include_stale: options.includeStale }), (v) =>
    v.sessions.length === 0
      ? 'No live sessions.'
      : table(
          ['NAME', 'SESSION', 'IDENTITY', 'ROLE', 'WU', 'LANE', 'STATUS', 'LAST HEARTBEAT'],
          v.sessions.map((s) => [
            s.display_name,
            s.session_id,
            s.agent_identity ?? '-',
            s.role ?? '-',
            s.wu_id ?? '-',
            s.lane ?? '-',
            s.status,
            s.last_heartbeat_at,
          ]),
        ),
  );
}
