import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WU_ID_PATTERN } from '../../../events/work-units/terms.js';
import type { WorkUnitsState } from '../../../projections/work-units/state.js';
import type { ProposedEvent } from '../../../deciders/decision.js';
import { isValidStamp } from '../../work-units/stamps.js';
import { INPUT_LIMITS, readInputFile } from '../../input/bounded-input.js';

/**
 * LumenFlow's done stamps: any file `<stampsDir>/WU-<n>.done` is evidence the WU is done (LumenFlow
 * itself only checks that the file exists), read in and out of git repositories. A stamp whose text
 * is not `WU <id> — <title>` / `Completed: <date>` still counts; it gets an informational finding.
 */
export interface StampFile {
  wu_id: string;
  path: string;
  /** Its text is Baton's and LumenFlow's usual two lines. */
  recognised: boolean;
}

export interface StampsPlan {
  files: StampFile[];
  events: ProposedEvent[];
}

/** Every `WU-<n>.done` in the folder, in name order. */
export function readStampFolder(folder: string, display: (abs: string) => string): (StampFile & { content_hash: string })[] {
  if (!existsSync(folder)) return [];
  const out: (StampFile & { content_hash: string })[] = [];
  for (const name of readdirSync(folder).sort()) {
    const m = /^(WU-[0-9]+)\.done$/.exec(name);
    if (!m || !WU_ID_PATTERN.test(m[1]!)) continue;
    let bytes: Buffer;
    try {
      bytes = readInputFile(join(folder, name), 'REPO', INPUT_LIMITS.stamp, { namedPipe: 'refuse' });
    } catch {
      continue;
    }
    out.push({
      wu_id: m[1]!,
      path: display(join(folder, name)),
      recognised: isValidStamp(m[1]!, bytes),
      content_hash: createHash('sha256').update(bytes).digest('hex'),
    });
  }
  return out;
}

/** One `observation.stamp_file` per stamp not yet recorded as present, and per recorded one now gone from the folder. */
export function planStamps(folder: string, folderDisplay: string, state: WorkUnitsState, display: (abs: string) => string): StampsPlan {
  const files = readStampFolder(folder, display);
  const events: ProposedEvent[] = [];
  const present = new Set<string>();
  for (const file of files) {
    present.add(file.wu_id);
    const wu = state.wus[file.wu_id];
    if (wu?.stamped !== undefined && wu.stamped !== null) continue;
    const last = wu?.stamp_file ?? null;
    if (last === null || last.path !== file.path || !last.present || !last.valid) {
      events.push({
        type: 'observation.stamp_file',
        stream: `wu/${file.wu_id}`,
        data: { wu_id: file.wu_id, path: file.path, present: true, valid: true, content_hash: file.content_hash },
      });
    }
  }
  const prefix = `${folderDisplay}/`;
  for (const wu of Object.values(state.wus)) {
    const last = wu.stamp_file;
    if (last !== null && last.present && last.path.startsWith(prefix) && !present.has(wu.wu_id)) {
      events.push({
        type: 'observation.stamp_file',
        stream: `wu/${wu.wu_id}`,
        data: { wu_id: wu.wu_id, path: last.path, present: false, valid: false, content_hash: null },
      });
    }
  }
  return { files: files.map(({ wu_id, path, recognised }) => ({ wu_id, path, recognised })), events };
}
