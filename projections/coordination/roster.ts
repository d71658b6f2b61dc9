import { SessionStatus } from '../../events/coordination/vocabulary.js';
import type { BatonEvent } from '../../events/baton-event.js';
import type { Projection } from '../projection.js';
import { effectiveStatus, readerIdentityOf, sessionsInOrder } from './sessions.js';
import { applyCoordination, deserializeCoordination, initCoordination, serializeCoordination, type CoordinationState, type IntegrityFinding } from './state.js';

/** `mem roster` (§4): live sessions, plus abandoned ones with `includeStale`. */
export interface RosterEntry {
  session_id: string;
  display_name: string;
  agent_identity: string | null;
  reader_identity: string;
  role: string | null;
  wu_id: string | null;
  lane: string | null;
  client_type: string | null;
  status: SessionStatus;
  created_at: string;
  last_heartbeat_at: string;
}

export interface RosterView {
  v: 1;
  type: 'roster';
  generated_at: string;
  sessions: RosterEntry[];
  /** Facts the coordination fold could not apply (e.g. an event that fails its schema), by seq. */
  integrity_findings: IntegrityFinding[];
}

export function rosterView(state: CoordinationState, now: string, options: { includeStale?: boolean } = {}): RosterView {
  const sessions: RosterEntry[] = [];
  for (const s of sessionsInOrder(state)) {
    const status = effectiveStatus(s, now);
    if (status !== SessionStatus.active && !(options.includeStale && status === SessionStatus.abandoned)) continue;
    // The current WU: the latest claim by the session, else what it started with.
    const claimed = s.claimed_wu !== null ? state.wus.get(s.claimed_wu) : undefined;
    sessions.push({
      session_id: s.session_id,
      display_name: s.display_name,
      agent_identity: s.agent_identity,
      reader_identity: readerIdentityOf(s),
      role: s.role,
      wu_id: s.claimed_wu ?? s.wu_id,
      lane: s.claimed_wu !== null ? (claimed?.lane ?? null) : s.lane,
      client_type: s.client_type,
      status,
      created_at: s.created_at,
      last_heartbeat_at: s.last_heartbeat_at,
    });
  }
  return { v: 1, type: 'roster', generated_at: now, sessions, integrity_findings: state.findings.map((f) => ({ ...f })) };
}

/** Arguments a view takes in `replay` (the same as its command's flags). */
export type ViewArgs = Readonly<Record<string, string | boolean | undefined>>;

/** Identity of the coordination fold (Projection.fold): its views are folded once per run. */
const COORDINATION_FOLD = Object.freeze({ fold: 'coordination' });

/** The shared coordination fold under a view's name; each view gets its own snapshot. */
export function coordinationProjection<V>(
  name: string,
  view: (state: CoordinationState, now: string, args: ViewArgs) => V,
): Projection<CoordinationState, V> & { viewWith(state: CoordinationState, now: string, args: ViewArgs): V } {
  return {
    name,
    // 2: a session keeps its latest lapse (`session.lapsed`). 3: the session streams' versions.
    version: 3,
    fold: COORDINATION_FOLD,
    init: initCoordination,
    apply: (state: CoordinationState, event: BatonEvent) => applyCoordination(state, event),
    view: (state: CoordinationState, now: string) => view(state, now, {}),
    viewWith: view,
    serialize: serializeCoordination,
    deserialize: deserializeCoordination,
  };
}

/** The fold every coordination command runs (one snapshot shared by all of them). */
export const coordinationStateProjection = coordinationProjection('coordination', (_state, now) => ({
  v: 1 as const,
  type: 'coordination',
  generated_at: now,
}));

export const rosterProjection = coordinationProjection('roster', (state, now, args) =>
  rosterView(state, now, { includeStale: args['include_stale'] === true }),
);
