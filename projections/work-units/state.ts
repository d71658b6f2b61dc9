import { ownValue, setOwnValue } from '../own-keys.js';
import { keepAlive } from '../coordination/liveness.js';
import type { AcceptedEvent, BatonEvent, EventOf, RejectedEvent } from '../../events/baton-event.js';
import { rejectionText } from '../rejection-text.js';
import type { DefinitionFields } from '../../events/work-units/definition.js';
import { DEFINITION_FIELD_NAMES, YamlStatus } from '../../events/work-units/terms.js';
import { stepWu, type WuLifecycle } from '../../machines/work-unit-steps.js';
import type { WuMachineEvent } from '../../machines/work-unit.js';
import { applyInitiativeFields, applySettingsRecorded, lumenflowLifecycleEvent } from './lumenflow-fold.js';
import { newWuRecord, machineEventOf } from './records.js';
import type { Mark, SessionFacts, WuRecord, WorkUnitsState } from './records.js';

/**
 * The work-unit fold (work-units.md §3–§5): every fact the reconciler reads, per WU, plus
 * initiatives, the light session facts stall detection needs, the dirty paths and the attempts.
 * Pure and plain JSON (records, not Maps: every key is a checked id). Never throws on history: an
 * event the `wu` machine rejects changes nothing and becomes a finding `REJECTED_BY_MACHINE`.
 */
// The fold's records live in records.ts; importers of the fold find them here too.
export { initWorkUnits, newWuRecord, yamlStatusClass, machineEventOf } from './records.js';
export type {
  Mark,
  IntegrityFinding,
  ClaimFact,
  CheckpointFact,
  HandoffFact,
  WuRecord,
  InitiativeRecord,
  AttemptRecord,
  SessionFacts,
  WorkUnitsState,
} from './records.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * `{ ...mark, ...extra }`, same keys in the same order, without an object spread: V8 copies
 * `{ ...mark, present, branch }` through a slow runtime path (the fold's hottest line on a long
 * log of observations), while a literal plus Object.assign stays on the fast one.
 */
function withMark<T extends object>(mark: Mark, extra: T): Mark & T {
  return Object.assign({ seq: mark.seq, at: mark.at, type: mark.type, actor: mark.actor, stream: mark.stream, summary: mark.summary }, extra);
}

function wuOf(state: WorkUnitsState, wuId: string): WuRecord {
  let wu = state.wus[wuId];
  if (wu === undefined) state.wus[wuId] = wu = newWuRecord(wuId);
  return wu;
}

/** Copy one definition field; a helper so the key and its value's type stay correlated. */
function copyField<K extends keyof DefinitionFields>(to: DefinitionFields, from: DefinitionFields, name: K): void {
  to[name] = from[name];
}

function applyFields(wu: WuRecord, fields: DefinitionFields, removed: readonly (keyof DefinitionFields)[], seq: Mark): void {
  for (const name of DEFINITION_FIELD_NAMES) {
    if (Object.hasOwn(fields, name)) {
      copyField(wu.def, fields, name);
      wu.def_seq[name] = seq;
    }
  }
  for (const name of removed) {
    if (Object.hasOwn(wu.def, name)) {
      delete wu.def[name];
      wu.def_seq[name] = seq;
    }
  }
}

export function applyWorkUnits(state: WorkUnitsState, event: BatonEvent): WorkUnitsState {
  state.head_seq = event.seq;
  if (event.stream.startsWith('session/')) countSessionStream(state, event.stream.slice('session/'.length));
  if (event.rejected !== undefined) return applyRejected(state, event);
  // Events of other domains (most of a long log) carry nothing for this fold but liveness: skip
  // building a mark and its summary for them.
  if (!concernsWorkUnits(event.type)) {
    bumpSessions(state, event);
    return state;
  }
  const mark: Mark = { seq: event.seq, at: event.at, type: event.type, actor: event.actor, stream: event.stream, summary: summarize(event) };
  // Sessions: the light facts stall detection reads (tasks.md §1.1, coordination.md §2).
  switch (event.type) {
    case 'session.started': {
      const id = event.data.session_id;
      if (ownValue(state.sessions, id) === undefined) setOwnValue(state.sessions, id, sessionFactsOf(event));
      return state;
    }
    case 'session.ended': {
      const s = ownValue(state.sessions, event.data.session_id);
      if (s !== undefined && s.ended === false) s.ended = event.data.status;
      return state;
    }
    case 'session.lapsed': {
      // The noticing command's actor is kept alive below; the lapsed session is not.
      const s = ownValue(state.sessions, event.data.session_id);
      if (s !== undefined) s.lapse = { seq: event.seq, last_seen: event.data.last_seen, lapsed_at: event.data.lapsed_at };
      break;
    }
    case 'initiative.created':
      applyInitiativeCreated(state, event);
      return state;
    case 'initiative.updated':
    case 'observation.initiative_yaml':
      applyInitiativeFields(state, event);
      return state;
    case 'settings.recorded':
      applySettingsRecorded(state, event);
      return state;
    case 'orchestration.attempt_started':
      applyAttemptStarted(state, event, mark);
      return state;
    case 'observation.dirty_paths':
      state.dirty = withMark(mark, { paths: event.data.paths });
      return state;
    case 'signal.sent': {
      const wuId = event.data.wu_id;
      if (wuId !== undefined) wuOf(state, wuId).signal = mark;
      break;
    }
    case 'session.heartbeat':
      break;
    default:
      if (isWuFact(event)) applyWuEvent(state, event, mark);
  }
  bumpSessions(state, event);
  return state;
}

/** Every event on `session/<id>`, whatever its type or fate, counts in that stream's version. */
function countSessionStream(state: WorkUnitsState, id: string): void {
  setOwnValue(state.session_streams, id, (ownValue(state.session_streams, id) ?? 0) + 1);
}

/** A started session's facts: its clock, and the worktree, branch, agent identity and role it named, when it named them. */
function sessionFactsOf(event: EventOf<'session.started'>): SessionFacts {
  const { ttl_seconds, worktree, branch, agent_identity, role } = event.data;
  const facts: SessionFacts = { last_heartbeat_at: event.at, ended: false, ttl_seconds };
  if (worktree !== undefined && worktree !== null) facts.worktree = worktree;
  if (branch !== undefined && branch !== null) facts.branch = branch;
  if (agent_identity !== undefined && agent_identity !== null) facts.agent_identity = agent_identity;
  if (role !== undefined && role !== null) facts.role = role;
  return facts;
}

/** `initiative.created`: the first definition of an id wins; its slug resolves to it. */
function applyInitiativeCreated(state: WorkUnitsState, event: EventOf<'initiative.created'>): void {
  const { initiative: id, slug, title, lanes } = event.data;
  if (state.initiatives[id] !== undefined) return;
  state.initiatives[id] = { seq: event.seq, initiative: id, title, slug, lanes };
  if (slug !== null && ownValue(state.slugs, slug) === undefined) setOwnValue(state.slugs, slug, id);
}

/** `orchestration.attempt_started`: the settings a launch attempt used; its handoffs follow. */
function applyAttemptStarted(state: WorkUnitsState, event: EventOf<'orchestration.attempt_started'>, mark: Mark): void {
  const d = event.data;
  (state.attempts[d.initiative] ??= []).push(
    withMark(mark, {
      launch_attempt: d.launch_attempt,
      client: d.client,
      max_active_workers: d.max_active_workers,
      max_active_workers_source: d.max_active_workers_source,
      stall_threshold: d.stall_threshold,
      handoff_format: d.handoff_format,
      logical_waves: d.logical_waves,
      waves: d.waves,
      deferred: d.deferred,
      handoffs: [],
    }),
  );
}

/** One `key=value` of a summary ('' when the value is absent). */
function summaryBit(key: string, v: unknown): string {
  if (v === undefined || v === null) return '';
  return ` ${key}=${typeof v === 'string' ? v.slice(0, 80) : JSON.stringify(v)}`;
}

/**
 * A short human summary of an event, kept with its mark for `wu explain`: the type, then these
 * data keys when present, in this order. Written out key by key — it runs for every work-unit
 * event a fold reads, and a loop over the key names made each lookup a slow generic one.
 */
function summarize(event: AcceptedEvent): string {
  // Read across every type this fold summarises, by key name.
  const d: Record<string, unknown> = event.data;
  const fields = event.type === 'observation.wu_yaml' ? event.data.fields : undefined;
  const paths = event.type === 'observation.dirty_paths' ? event.data.paths : undefined;
  return (
    event.type +
    summaryBit('wu_id', d['wu_id']) +
    summaryBit('session_id', d['session_id']) +
    summaryBit('mode', d['mode']) +
    summaryBit('path', d['path']) +
    summaryBit('branch', d['branch']) +
    summaryBit('present', d['present']) +
    summaryBit('valid', d['valid']) +
    summaryBit('reason', d['reason']) +
    summaryBit('note', d['note']) +
    summaryBit('status', fields?.['status']) +
    summaryBit('launch_attempt', d['launch_attempt']) +
    summaryBit('relaunch', d['relaunch']) +
    (paths !== undefined ? ` paths=${paths.slice(0, 5).join(',')}` : '')
  );
}

/** The event types this fold reads (the switch above and applyWuEvent's filter). */
function concernsWorkUnits(type: string): boolean {
  return (
    type.startsWith('wu.') ||
    type.startsWith('observation.') ||
    type.startsWith('delegation.') ||
    type.startsWith('session.') ||
    type === 'handoff.emitted' ||
    type === 'initiative.created' ||
    type === 'initiative.updated' ||
    type === 'settings.recorded' ||
    type === 'orchestration.attempt_started' ||
    type === 'signal.sent'
  );
}

/** Any fact a live session records keeps it alive (coordination.md §2 heartbeat rule). */
function bumpSessions(state: WorkUnitsState, event: BatonEvent): void {
  if (event.rejected === undefined && event.type === 'session.heartbeat') keepAlive(ownValue(state.sessions, event.data.session_id), event.at);
  keepAlive(ownValue(state.sessions, event.actor), event.at);
}

/**
 * An event the catalog refused changes nothing but liveness (any fact a session records keeps it
 * alive); when it names a known WU, that WU carries the finding, so status and explain list it.
 */
function applyRejected(state: WorkUnitsState, event: RejectedEvent): WorkUnitsState {
  bumpSessions(state, event);
  if (!concernsWorkUnits(event.type)) return state;
  const wu = ownValue(state.wus, str(event.data['wu_id']) ?? '');
  if (wu !== undefined) wu.findings.push({ seq: event.seq, stream: event.stream, type: event.type, code: 'INVALID_EVENT', message: rejectionText(event) });
  return state;
}

/** A finding on the WU: the machine refused the event, which changes nothing else. */
function reject(wu: WuRecord, event: Pick<BatonEvent, 'seq' | 'stream' | 'type'>, message: string): void {
  wu.findings.push({ seq: event.seq, stream: event.stream, type: event.type, code: 'REJECTED_BY_MACHINE', message });
}

function setYaml(wu: WuRecord, mark: Mark, status: string): void {
  wu.yaml_status = status;
  wu.yaml_status_mark = mark;
}

/** The events of one WU (they carry its `wu_id`): its definition, lifecycle, observations, handoffs. */
type WuFactEvent = Extract<
  AcceptedEvent,
  { type: `wu.${string}` | `observation.${string}` | `delegation.${string}` | 'handoff.emitted'; data: { wu_id: string } }
>;

/**
 * LumenFlow's `complete` line, folded as the done status its YAML would then say (it has no event
 * type of its own: the log keeps the `observation.lumenflow_wu_event`).
 */
export type LumenflowCompleted = Omit<EventOf<'wu.unblocked'>, 'type'> & { type: 'lumenflow.completed' };

/** What the WU fold applies: a WU's own event, or a LumenFlow history line read as one. */
export type WuFact = WuFactEvent | LumenflowCompleted;

function isWuFact(event: AcceptedEvent): event is WuFactEvent {
  const t = event.type;
  return (
    (t.startsWith('wu.') || t.startsWith('observation.') || t.startsWith('delegation.') || t === 'handoff.emitted') &&
    'wu_id' in event.data &&
    typeof event.data.wu_id === 'string'
  );
}

/**
 * One WU fact (work-units.md §3–§5): a definition event sets fields; any other event first steps the
 * `wu` machine (a refused step is a finding and changes nothing), then records its fact by family.
 */
function applyWuEvent(state: WorkUnitsState, original: WuFactEvent, originalMark: Mark): void {
  let event: WuFact = original;
  let mark = originalMark;
  if (original.type === 'observation.lumenflow_wu_event') {
    // Folded as the lifecycle fact it stands for, at its own time; the mark keeps the real type.
    const fact = lumenflowLifecycleEvent(state, original);
    if (fact === null) return;
    event = fact;
    mark = { ...originalMark, at: fact.at };
  }
  const wuId = event.data.wu_id;
  const wu = wuOf(state, wuId);

  if (event.type === 'wu.defined') return applyDefined(wu, wuId, event, mark);
  if (event.type === 'wu.updated') return applyFields(wu, event.data.changed, event.data.removed_fields ?? [], mark);

  const lifecycle = steppedLifecycle(wu, wuId, event);
  if (lifecycle === null) return;
  const before = wu.lifecycle;
  const wasClaimed = before.state === 'in_progress' || before.state === 'blocked' || before.picked_up;
  wu.lifecycle = lifecycle;

  switch (event.type) {
    case 'observation.wu_yaml':
      return applyYamlObservation(wu, event, mark, wasClaimed);
    case 'handoff.emitted':
      return applyHandoff(state, wu, wuId, event, mark);
    case 'observation.worktree':
    case 'observation.branch':
    case 'observation.stamp_file':
      return applyGitObservation(wu, event, mark);
    default:
      return applyLifecycleFact(wu, wuId, event, mark, lifecycle, wasClaimed);
  }
}

/** `wu.defined`: the first one defines the WU (yaml status `ready` unless a YAML said otherwise); a second is refused. */
function applyDefined(wu: WuRecord, wuId: string, event: EventOf<'wu.defined'>, mark: Mark): void {
  if (wu.created_seq !== null) return reject(wu, event, `${wuId} was already defined at seq ${wu.created_seq}; a second wu.defined changes nothing`);
  wu.defined = true;
  wu.created_seq = event.seq;
  const { wu_id: _id, ...fields } = event.data;
  applyFields(wu, fields, [], mark);
  if (wu.yaml_status === null) {
    wu.yaml_status = YamlStatus.ready;
    wu.yaml_status_mark = mark;
  }
}

/**
 * The lifecycle after the event: the machine's next state, the current one when the event is no
 * machine event, or null when the machine refuses it (then the WU carries the finding).
 */
function steppedLifecycle(wu: WuRecord, wuId: string, event: WuFact): WuLifecycle | null {
  const machineEvent: WuMachineEvent | null = event.type === 'lumenflow.completed' ? { type: 'YAML_STATUS', status: 'terminal' } : machineEventOf(event);
  if (machineEvent === null) return wu.lifecycle;
  const next = stepWu(wu.lifecycle, machineEvent);
  if (next !== null) return next;
  const terminal = wu.lifecycle.state === 'done' || wu.lifecycle.stamp_file;
  reject(
    wu,
    event,
    terminal ? `${wuId} is done (terminal); ${event.type} is not allowed` : `${event.type} is not allowed while ${wuId} is ${wu.lifecycle.state}`,
  );
  return null;
}

/** `observation.wu_yaml`: the WU's YAML as read, its fields, status, claim time and block reason. */
function applyYamlObservation(wu: WuRecord, event: EventOf<'observation.wu_yaml'>, mark: Mark, wasClaimed: boolean): void {
  const d = event.data;
  wu.defined = true;
  const fields = d.fields;
  const removed = d.removed_fields;
  applyFields(wu, fields, removed, mark);
  Object.assign(wu.yaml_fields, fields);
  for (const k of removed) delete wu.yaml_fields[k];
  wu.yaml_content_hash = d.content_hash;
  const status = str(fields.status);
  if (status !== null) {
    setYaml(wu, mark, status);
    if ((status === 'in_progress' || status === 'blocked') && !wasClaimed) wu.claimed_true_seq = event.seq;
  }
  if (typeof fields['claimed_at'] === 'string') {
    const parsed = Date.parse(fields['claimed_at']);
    wu.yaml_claimed_at = withMark(mark, { at: Number.isNaN(parsed) ? event.at : new Date(parsed).toISOString() });
  }
  if (typeof fields['blocked_reason'] === 'string' && status === 'blocked') wu.blocked = withMark(mark, { reason: fields['blocked_reason'] });
}

/** The claim, block, return and stamp facts of the lifecycle (the `wu.*` and `delegation.*` events). */
function applyLifecycleFact(wu: WuRecord, wuId: string, event: WuFact, mark: Mark, lifecycle: WuLifecycle, wasClaimed: boolean): void {
  switch (event.type) {
    case 'wu.claimed':
      wu.claim = withMark(mark, {
        session_id: event.data.session_id,
        mode: event.data.mode,
        worktree_path: event.data.worktree_path,
        branch: event.data.branch,
        ...(event.data.takeover_from !== null ? { takeover_from: event.data.takeover_from } : {}),
        ...(event.data.reason !== undefined ? { reason: event.data.reason } : {}),
        ...(event.data.forced !== undefined ? { forced: event.data.forced } : {}),
        ...(event.data.agent_identity !== undefined ? { agent_identity: event.data.agent_identity } : {}),
        ...(event.data.paths !== undefined ? { paths: event.data.paths } : {}),
      });
      wu.claimed_true_seq = event.seq;
      setYaml(wu, mark, YamlStatus.in_progress);
      return;
    case 'wu.checkpointed':
      wu.checkpoint = withMark(mark, { note: event.data.note, progress: event.data.progress, next_steps: event.data.next_steps });
      return;
    case 'wu.worker_returned':
    case 'delegation.completed':
      wu.returned = mark;
      return;
    case 'wu.blocked':
      wu.blocked = withMark(mark, { reason: event.data.reason });
      setYaml(wu, mark, YamlStatus.blocked);
      return;
    case 'wu.unblocked':
      wu.unblock = mark;
      setYaml(wu, mark, lifecycle.state === 'in_progress' ? YamlStatus.in_progress : YamlStatus.ready);
      return;
    case 'wu.released':
      wu.window_start = event.seq;
      setYaml(wu, mark, YamlStatus.ready);
      return;
    case 'wu.stamped':
      wu.stamped = withMark(mark, { title: event.data.title, completed_date: event.data.completed_date, stamp_path: event.data.stamp_path });
      setYaml(wu, mark, YamlStatus.done);
      return;
    case 'delegation.picked_up':
      wu.pickup = mark;
      if (!wasClaimed) wu.claimed_true_seq = event.seq;
      return;
    case 'lumenflow.completed':
      setYaml(wu, mark, YamlStatus.done);
      return;
    default:
      return;
  }
}

/** `handoff.emitted`: the WU's handoff (a relaunch opens a new window), also listed on its launch attempt. */
function applyHandoff(state: WorkUnitsState, wu: WuRecord, wuId: string, event: EventOf<'handoff.emitted'>, mark: Mark): void {
  const d = event.data;
  const relaunch = d.relaunch;
  wu.handoff = withMark(mark, {
    initiative: d.initiative,
    launch_attempt: d.launch_attempt,
    claimed_mode: d.claimed_mode,
    worktree_path: d.worktree_path,
    branch: d.branch,
    relaunch,
    handoff_format: d.handoff_format,
    handoff_artifact_path: d.handoff_artifact_path,
    content_sha256: d.content_sha256,
    logical_wave: d.logical_wave,
  });
  if (relaunch) {
    wu.window_start = event.seq;
    setYaml(wu, mark, YamlStatus.ready);
  }
  const attempt = (state.attempts[wu.handoff.initiative] ?? []).find((a) => a.launch_attempt === wu.handoff!.launch_attempt);
  attempt?.handoffs.push(Object.assign(Object.assign({}, wu.handoff), { wu_id: wuId, lane: d.lane }));
}

/** What git and the file system showed: a worktree, a branch, the stamp file. */
function applyGitObservation(wu: WuRecord, event: WuFactEvent, mark: Mark): void {
  switch (event.type) {
    case 'observation.worktree':
      setOwnValue(wu.worktrees, event.data.path, withMark(mark, { present: event.data.present, branch: event.data.branch }));
      return;
    case 'observation.branch':
      setOwnValue(wu.branches, event.data.branch, withMark(mark, { present: event.data.present }));
      return;
    case 'observation.stamp_file':
      wu.stamp_file = withMark(mark, { path: event.data.path, present: event.data.present, valid: event.data.valid });
      return;
    default:
      return;
  }
}

/** Is this WU a member of the initiative (§2): its `initiative` is the id or the slug. */
export function isMember(state: WorkUnitsState, wu: WuRecord, initiative: string): boolean {
  return refersTo(state, wu.def.initiative ?? null, initiative);
}

/** Whether a WU's initiative reference (an id or a slug) names `initiative`. */
export function refersTo(state: WorkUnitsState, ref: string | null, initiative: string): boolean {
  if (ref === null) return false;
  if (ref === initiative) return true;
  const slug = ownValue(state.initiatives, initiative)?.slug;
  return slug !== null && slug !== undefined && ref === slug;
}

/** The initiative a WU belongs to (its id), resolving a slug. */
export function initiativeOf(state: WorkUnitsState, wu: WuRecord): string | null {
  const ref = wu.def.initiative;
  if (ref === undefined || ref === null) return null;
  if (ownValue(state.initiatives, ref) !== undefined) return ref;
  return ownValue(state.slugs, ref) ?? (ref.startsWith('INIT-') ? ref : null);
}
