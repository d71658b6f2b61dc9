import type { DecodedEvent } from '../../events/envelope.js';
import { SESSION_ID_PATTERN } from '../../events/coordination/vocabulary.js';
import { ownValue, setOwnValue } from '../own-keys.js';
import type { InitiativeRecord, WorkUnitsState } from './state.js';

/**
 * The fold's share of `baton import lumenflow` (issue 17): initiative fields, LumenFlow's recorded
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
export function applyInitiativeFields(state: WorkUnitsState, event: DecodedEvent): void {
  const d = event.data;
  const id = str(d['initiative']);
  if (id === null) return;
  const fromYaml = event.type === 'observation.initiative_yaml';
  const fields = ((fromYaml ? d['fields'] : d['changed']) as Record<string, unknown> | undefined) ?? {};
  const removed = fromYaml && Array.isArray(d['removed_fields']) ? (d['removed_fields'] as string[]) : [];
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
    record.yaml_content_hash = str(d['content_hash']);
  }
}

function setSlug(state: WorkUnitsState, record: InitiativeRecord, slug: string | null): void {
  if (record.slug !== null && ownValue(state.slugs, record.slug) === record.initiative) delete state.slugs[record.slug];
  record.slug = slug;
  if (slug !== null && ownValue(state.slugs, slug) === undefined) setOwnValue(state.slugs, slug, record.initiative);
}

export function applySettingsRecorded(state: WorkUnitsState, event: DecodedEvent): void {
  const d = event.data;
  state.recorded_settings = {
    seq: event.seq,
    source: str(d['source']) ?? 'lumenflow',
    lanes: (d['lanes'] as RecordedSettings['lanes'] | undefined) ?? {},
    max_active_workers: typeof d['max_active_workers'] === 'number' ? d['max_active_workers'] : null,
    stamps_dir: str(d['stamps_dir']) ?? '.lumenflow/stamps',
  };
}

/**
 * A `wu-events.jsonl` line as the Baton fact it stands for, dated by its own timestamp: claim →
 * `wu.claimed`, checkpoint → `wu.checkpointed`, block/unblock/release → the same, delegation → a
 * pickup, complete → LumenFlow's done status. `create` carries no lifecycle change (null). The
 * line's key is remembered so a re-import skips it.
 */
export function lumenflowLifecycleEvent(state: WorkUnitsState, event: DecodedEvent): DecodedEvent | null {
  const d = event.data;
  const key = str(d['line_key']);
  if (key !== null) setOwnValue((state.lumenflow_lines ??= {}), key, event.seq);
  const wuId = str(d['wu_id']);
  const at = str(d['timestamp']) ?? event.at;
  const session = str(d['session_id']);
  const sessionId = session !== null && SESSION_ID_PATTERN.test(session) ? session : null;
  const as = (type: string, data: Record<string, unknown>): DecodedEvent => ({ ...event, type, at, data: { wu_id: wuId, ...data } });
  switch (str(d['kind'])) {
    case 'claim':
      return as('wu.claimed', { session_id: sessionId, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null });
    case 'checkpoint':
      return as('wu.checkpointed', { session_id: sessionId, note: str(d['note']) ?? 'checkpoint', progress: str(d['progress']), next_steps: str(d['next_steps']) });
    case 'block':
      return as('wu.blocked', { reason: str(d['reason']) ?? str(d['note']) ?? '' });
    case 'unblock':
      return as('wu.unblocked', {});
    case 'release':
      return as('wu.released', { reason: str(d['reason']), previous_claimant: session });
    case 'delegation':
      return as('delegation.picked_up', { delegation_id: str(d['delegation_id']) ?? `line-${String(d['line'])}`, picked_up_by: str(d['parent_wu_id']) ?? 'lumenflow' });
    case 'complete':
      return as('lumenflow.completed', {});
    default:
      return null;
  }
}
