import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DeepDiveEventType, type DeepDiveCompiledData, type DeepDiveInitializedData } from '../../events/flow/deep-dive-events.js';
import type { NewEvent } from '../../events/envelope.js';
import { DEEP_DIVE_FILE } from '../../projections/flow/index.js';
import { readIfFile } from '../artifacts/atomic-write.js';
import { readDeepDiveFile } from './agent-flow-deep-dive.js';

/**
 * The deep dive Agent Flow wrote, as the events Baton would have recorded for it: an init, then one
 * compile with every section the file holds (sections Baton does not own included), marked
 * complete when the file's phase is `complete`. Null when there is no file.
 */
export type AdoptedDeepDive = { rel: string; bytes: Buffer; events: NewEvent[]; complete: boolean; scope: string } | { rel: string; key: string; rule: string };

export function adoptDeepDiveEvents(workspace: string): AdoptedDeepDive | null {
  const bytes = readIfFile(workspace, join(workspace, DEEP_DIVE_FILE));
  if (bytes === undefined) return null;
  const read = readDeepDiveFile(bytes.toString('utf8'));
  if ('key' in read) return { rel: DEEP_DIVE_FILE, key: read.key, rule: read.rule };
  const f = read.file;
  const id = `deepdive_${randomBytes(12).toString('hex')}`;
  const stream = `deep_dive/${id}`;
  const init: DeepDiveInitializedData = {
    deep_dive_id: id,
    scope: f.scope,
    focus_path: f.focus_path,
    agent_count: f.agent_count,
    refresh: false,
    backup_path: null,
  };
  const events: NewEvent[] = [{ type: DeepDiveEventType.initialized, stream, data: init }];
  const hasContent = Object.keys(f.sections).length > 0 || f.extra_sections.length > 0 || f.agents_spawned > 0;
  if (f.phase !== 'initializing' || hasContent) {
    const compiled: DeepDiveCompiledData = {
      deep_dive_id: id,
      sections: f.sections,
      ...(f.extra_sections.length > 0 ? { extra_sections: f.extra_sections } : {}),
      agents_spawned: f.agents_spawned,
      agents_completed: f.agents_completed,
      mark_complete: f.phase === 'complete',
    };
    events.push({ type: DeepDiveEventType.compiled, stream, data: compiled });
  }
  return { rel: DEEP_DIVE_FILE, bytes, events, complete: f.phase === 'complete', scope: f.scope };
}
