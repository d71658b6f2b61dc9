import type { SessionClock } from '../coordination/liveness.js';
import type { AcceptedEvent } from '../../events/baton-event.js';
import type { DefinitionFields } from '../../events/work-units/definition.js';
import { isTerminalYamlStatus, YamlStatus } from '../../events/work-units/terms.js';
import { INITIAL_WU_LIFECYCLE, type WuLifecycle } from '../../machines/work-unit-steps.js';
import type { WuMachineEvent, YamlStatusClass } from '../../machines/work-unit.js';
import type { InitiativeExtra, RecordedSettings } from './lumenflow-fold.js';

/**
 * What the work-unit fold keeps (state.ts folds into it): per WU, per initiative, per attempt, and
 * the light session facts stall detection needs; a fresh state and record; and which machine event
 * a stored event is.
 */

/** One event as evidence: where and when it was recorded, by whom, and what it said in short. */
export interface Mark {
  seq: number;
  at: string;
  type: string;
  actor: string;
  stream: string;
  summary: string;
}

export interface IntegrityFinding {
  seq: number;
  stream: string;
  type: string;
  code: string;
  message: string;
}

export interface ClaimFact extends Mark {
  session_id: string | null;
  mode: string;
  worktree_path: string | null;
  branch: string | null;
  /** The lapsed holder it took over from. */
  takeover_from?: string;
  /** Why it took over or overrode readiness; which readiness checks it overrode. */
  reason?: string;
  forced?: ('dependencies' | 'lane')[];
  /** The identity holding a claim made without a session. */
  agent_identity?: string;
  /** What the claim reserves besides the WU's code_paths (`wu claim --paths`). */
  paths?: string[];
}

/** A checkpoint as its worker wrote it: the note, progress and next steps a resuming agent reads. */
export interface CheckpointFact extends Mark {
  note: string;
  progress: string | null;
  next_steps: string | null;
}

export interface HandoffFact extends Mark {
  initiative: string;
  launch_attempt: number;
  claimed_mode: string;
  worktree_path: string | null;
  branch: string;
  relaunch: boolean;
  handoff_format: string;
  handoff_artifact_path: string;
  content_sha256: string;
  logical_wave: number;
}

export interface WuRecord {
  wu_id: string;
  /** `wu.defined` or `observation.wu_yaml` seen: the WU has a definition. */
  defined: boolean;
  /** The seq of its `wu.defined`, if any. */
  created_seq: number | null;
  /** The folded definition (§3.1) and, per field, the seq that set it. */
  def: DefinitionFields;
  def_seq: Record<string, Mark>;
  /** The definition as last observed from YAML only (the import compares with it). */
  yaml_fields: DefinitionFields;
  yaml_content_hash: string | null;
  lifecycle: WuLifecycle;
  yaml_status: string | null;
  yaml_status_mark: Mark | null;
  /** First seq of the current window (§5.3): the latest release or relaunch handoff; 0 = all. */
  window_start: number;
  claim: ClaimFact | null;
  /** The event that last made `claimed` true. */
  claimed_true_seq: number | null;
  checkpoint: CheckpointFact | null;
  unblock: Mark | null;
  pickup: Mark | null;
  returned: Mark | null;
  handoff: HandoffFact | null;
  blocked: (Mark & { reason: string }) | null;
  stamped: (Mark & { title: string; completed_date: string; stamp_path: string }) | null;
  stamp_file: (Mark & { path: string; present: boolean; valid: boolean }) | null;
  worktrees: Record<string, Mark & { present: boolean; branch: string | null }>;
  branches: Record<string, Mark & { present: boolean }>;
  signal: Mark | null;
  yaml_claimed_at: Mark | null;
  findings: IntegrityFinding[];
}

export interface InitiativeRecord {
  seq: number;
  initiative: string;
  title: string;
  slug: string | null;
  lanes: string[];
  /** Fields beyond `initiative create`'s (status, phases, wus, priority, owner, created, target_date): absent until set. */
  fields?: InitiativeExtra;
  /** The fields as last observed from the initiative's YAML file (the import compares with them). */
  yaml_fields?: Record<string, unknown>;
  yaml_content_hash?: string | null;
}

export interface AttemptRecord extends Mark {
  launch_attempt: number;
  client: string;
  handoff_format: string;
  max_active_workers: number | null;
  max_active_workers_source: string;
  stall_threshold: string;
  /** The plan as the run computed it (plan.json is rebuilt from these). */
  logical_waves: number[];
  waves: unknown[];
  deferred: unknown[];
  /** Its `handoff.emitted` facts, in seq order (launch.json is rebuilt from these). */
  handoffs: (HandoffFact & { wu_id: string; lane: string })[];
}

/**
 * What liveness reads of a session (projections/coordination/liveness.ts): the same facts the
 * coordination fold keeps; and the worktree and branch it started with, which its claims default to.
 */
export interface SessionFacts extends SessionClock {
  worktree?: string;
  branch?: string;
  /** Who the session works as: a later session of the same identity holds its claims. */
  agent_identity?: string;
  /** `orchestrator` may finish a claim its worker returned or let lapse. */
  role?: string;
  /** Its latest `session.lapsed`: the lapse of `last_seen` is recorded (a later fact of the session starts a new one). */
  lapse?: { seq: number; last_seen: string; lapsed_at: string };
}

export interface WorkUnitsState {
  head_seq: number;
  initiatives: Record<string, InitiativeRecord>;
  /** slug → initiative id. */
  slugs: Record<string, string>;
  wus: Record<string, WuRecord>;
  sessions: Record<string, SessionFacts>;
  dirty: (Mark & { paths: string[] }) | null;
  /** initiative → every attempt started, in seq order. */
  attempts: Record<string, AttemptRecord[]>;
  /** The latest `settings.recorded` (LumenFlow's lanes and capacity); absent until one is folded. */
  recorded_settings?: RecordedSettings;
  /** Keys of the `wu-events.jsonl` lines imported so far → the seq that recorded each. */
  lumenflow_lines?: Record<string, number>;
  /** `session/<id>` → how many events that stream holds (its version): what a recorded lapse expects. */
  session_streams: Record<string, number>;
}

export function initWorkUnits(): WorkUnitsState {
  return { head_seq: 0, initiatives: {}, slugs: {}, wus: {}, sessions: {}, dirty: null, attempts: {}, session_streams: {} };
}

export function newWuRecord(wuId: string): WuRecord {
  return {
    wu_id: wuId,
    defined: false,
    created_seq: null,
    def: {},
    def_seq: {},
    yaml_fields: {},
    yaml_content_hash: null,
    lifecycle: { ...INITIAL_WU_LIFECYCLE },
    yaml_status: null,
    yaml_status_mark: null,
    window_start: 0,
    claim: null,
    claimed_true_seq: null,
    checkpoint: null,
    unblock: null,
    pickup: null,
    returned: null,
    handoff: null,
    blocked: null,
    stamped: null,
    stamp_file: null,
    worktrees: {},
    branches: {},
    signal: null,
    yaml_claimed_at: null,
    findings: [],
  };
}

export function yamlStatusClass(status: string): YamlStatusClass {
  if (isTerminalYamlStatus(status)) return 'terminal';
  if (status === YamlStatus.in_progress) return 'in_progress';
  if (status === YamlStatus.blocked) return 'blocked';
  return 'unclaimed';
}

/** The machine event a stored event is, or null when the event is not a lifecycle fact. */
export function machineEventOf(event: AcceptedEvent): WuMachineEvent | null {
  switch (event.type) {
    case 'wu.claimed':
      return { type: 'CLAIM' };
    case 'wu.checkpointed':
      return { type: 'CHECKPOINT' };
    case 'wu.worker_returned':
      return { type: 'RETURN' };
    case 'wu.blocked':
      return { type: 'BLOCK' };
    case 'wu.unblocked':
      return { type: 'UNBLOCK' };
    case 'wu.released':
      return { type: 'RELEASE' };
    case 'wu.stamped':
      return { type: 'STAMP' };
    case 'delegation.picked_up':
      return { type: 'PICKUP' };
    case 'delegation.completed':
      return { type: 'DELEGATION_COMPLETED' };
    case 'handoff.emitted':
      return event.data.relaunch ? { type: 'RELAUNCH' } : { type: 'HANDOFF' };
    case 'observation.stamp_file':
      return { type: 'STAMP_FILE', valid: event.data.present && event.data.valid };
    case 'observation.wu_yaml': {
      const status = event.data.fields.status;
      return typeof status === 'string' ? { type: 'YAML_STATUS', status: yamlStatusClass(status) } : null;
    }
    default:
      return null;
  }
}
