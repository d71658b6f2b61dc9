import type { EventOf } from '../../events/baton-event.js';
import { SESSION_ID_PATTERN } from '../../events/coordination/vocabulary.js';
import { ownValue, setOwnValue } from '../own-keys.js';
import type { InitiativeRecord, LumenflowCompleted, WorkUnitsState, WuFact } from './state.js';

/**
 * The fold's share of `baton import lumenflow`: initiative fields, LumenFlow's recorded
 * lane settings, and the lines of `wu-events.jsonl` read as the Baton lifecycle facts they are.
 * Pure; state.ts calls in here so the shared fold stays one switch.
 */

/** Lane settings and capacity as a repository's own configuration stated them (latest `settings.recorded`). */
export interface RecordedSettings {
  seq: number;
  source: string;
  lanes: Record<string, { lock_policy?: 'all' | 'active' | 'none'; wip_limit?: number; code_paths?: string[] }>;
  max_active_workers: number | null;
  stamps_dir: string;
}

/** The fields an initiative carries besides the ones `initiative create` sets. */
export type InitiativeExtra = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** `initiative.updated` and `observation.initiative_yaml`: per field, the latest value wins. */
export function applyInitiativeFields(state: WorkUnitsState, event: EventOf<'initiative.updated'> | EventOf<'observation.initiative_yaml'>): void {
  const id = event.data.initiative;
  const fromYaml = event.type === 'observation.initiative_yaml';
  const fields: Record<string, unknown> = event.type === 'observation.initiative_yaml' ? event.data.fields : event.data.changed;
  const removed: readonly string[] = event.type === 'observation.initiative_yaml' ? event.data.removed_fields : [];
  let record = ownValue(state.initiatives, id);
  if (record === undefined) {
    // A YAML file defines the initiative; a by-hand update of an unknown one is refused before it is appended.
    record = { seq: event.seq, initiative: id, title: str(fields['title']) ?? id, slug: null, lanes: [] };
    setOwnValue(state.initiatives, id, record);
  }
  const extra: InitiativeExtra = (record.fields ??= {});
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'title' && typeof value === 'string') record.title = value;
    else if (key === 'lanes' && Array.isArray(value)) record.lanes = value as string[];
    else if (key === 'slug') setSlug(state, record, str(value));
    else extra[key] = value;
  }
  for (const key of removed) {
    if (key === 'lanes') record.lanes = [];
    else if (key === 'slug') setSlug(state, record, null);
    else if (key !== 'title') delete extra[key];
  }
  if (fromYaml) {
    const yaml = (record.yaml_fields ??= {});
    for (const [key, value] of Object.entries(fields)) yaml[key] = value;
    for (const key of removed) delete yaml[key];
    if (event.type === 'observation.initiative_yaml') record.yaml_content_hash = event.data.content_hash;
  }
}

function setSlug(state: WorkUnitsState, record: InitiativeRecord, slug: string | null): void {
  if (record.slug !== null && ownValue(state.slugs, record.slug) === record.initiative) delete state.slugs[record.slug];
  record.slug = slug;
  if (slug !== null && ownValue(state.slugs, slug) === undefined) setOwnValue(state.slugs, slug, record.initiative);
}

export function applySettingsRecorded(state: WorkUnitsState, event: EventOf<'settings.recorded'>): void {
  const d = event.data;
  state.recorded_settings = { seq: event.seq, source: d.source, lanes: d.lanes, max_active_workers: d.max_active_workers, stamps_dir: d.stamps_dir };
}

/**
 * A `wu-events.jsonl` line as the Baton fact it stands for, dated by its own timestamp: claim →
 * `wu.claimed`, checkpoint → `wu.checkpointed`, block/unblock/release → the same, delegation → a
 * pickup, complete → LumenFlow's done status. `create` carries no lifecycle change (null). The
 * line's key is remembered so a re-import skips it.
 */
export function lumenflowLifecycleEvent(state: WorkUnitsState, event: EventOf<'observation.lumenflow_wu_event'>): WuFact | null {
  const d = event.data;
  setOwnValue((state.lumenflow_lines ??= {}), d.line_key, event.seq);
  const wu_id = d.wu_id;
  const session = d.session_id ?? null;
  const session_id = session !== null && SESSION_ID_PATTERN.test(session) ? session : null;
  const { type: _type, data: _data, ...envelope } = event;
  const at = d.timestamp;
  switch (d.kind) {
    case 'claim':
      return { ...envelope, at, type: 'wu.claimed', data: { wu_id, session_id, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null } };
    case 'checkpoint':
      return {
        ...envelope,
        at,
        type: 'wu.checkpointed',
        data: { wu_id, session_id, note: d.note ?? 'checkpoint', progress: d.progress ?? null, next_steps: d.next_steps ?? null },
      };
    case 'block':
      return { ...envelope, at, type: 'wu.blocked', data: { wu_id, reason: d.reason ?? d.note ?? '' } };
    case 'unblock':
      return { ...envelope, at, type: 'wu.unblocked', data: { wu_id } };
    case 'release':
      return { ...envelope, at, type: 'wu.released', data: { wu_id, reason: d.reason ?? null, previous_claimant: session } };
    case 'delegation':
      return {
        ...envelope,
        at,
        type: 'delegation.picked_up',
        data: { wu_id, delegation_id: d.delegation_id ?? `line-${d.line}`, picked_up_by: d.parent_wu_id ?? 'lumenflow' },
      };
    case 'complete': {
      const completed: LumenflowCompleted = { ...envelope, at, type: 'lumenflow.completed', data: { wu_id } };
      return completed;
    }
    default:
      return null;
  }
}
