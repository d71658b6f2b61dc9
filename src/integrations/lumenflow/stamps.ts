import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WU_ID_PATTERN } from '../../../events/work-units/terms.js';
import type { StampFile } from '../../../deciders/lumenflow-sources.js';
import { isValidStamp } from '../../work-units/stamps.js';
import { INPUT_LIMITS, readInputFile } from '../../input/bounded-input.js';

/**
 * LumenFlow's done stamps: any file `<stampsDir>/WU-<n>.done` is evidence the WU is done (LumenFlow
 * itself only checks that the file exists), read in and out of git repositories. A stamp whose text
 * is not `WU <id> — <title>` / `Completed: <date>` still counts; it gets an informational finding
 * (deciders/lumenflow-sources.ts compares them with the log). Every `WU-<n>.done` in the folder, in name order.
 */
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
