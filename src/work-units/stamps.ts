import { join } from 'node:path';
import { FileAccess, readIfFile, writeIfChanged } from '../artifacts/atomic-write.js';
import { stepWu } from '../../machines/work-unit-steps.js';
import { BatonError, ErrorCode } from '../errors.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { appendAs, appendedOf, checkWuId, knownWu, loadWorkUnits, type WorkUnitsEnv } from './env.js';

/**
 * Done stamps and `wu done` (work-units.md §12): `wu.stamped` is the fact; `.baton/stamps/<WU>.done`
 * is its projection, rewritten when missing or altered, never read as evidence.
 */
export function stampRelativePath(wuId: string): string {
  return `.baton/stamps/${wuId}.done`;
}

export function stampContent(wuId: string, title: string, completedDate: string): string {
  return `WU ${wuId} \u2014 ${title}\nCompleted: ${completedDate}\n`;
}

/** A stamp file is valid when line 1 names the WU of its file name and line 2 has a valid date (§5.2). */
export function isValidStamp(wuId: string, bytes: Buffer | undefined): boolean {
  if (bytes === undefined) return false;
  const lines = bytes.toString('utf8').split('\n');
  const first = lines[0] ?? '';
  if (!(first === `WU ${wuId}` || first.startsWith(`WU ${wuId} `))) return false;
  const m = /^Completed: (\d{4}-\d{2}-\d{2})\s*$/.exec(lines[1] ?? '');
  if (!m) return false;
  const date = new Date(`${m[1]}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === m[1];
}

export interface DoneResult {
  wu_id: string;
  stamp_path: string;
  already_exists: boolean;
  appended: { seq: number; type: string }[];
}

export async function doneWu(env: WorkUnitsEnv, wuId: string): Promise<DoneResult> {
  checkWuId(wuId);
  const stream = `wu/${wuId}`;
  const version = await env.store.streamVersion(stream);
  const { state } = await loadWorkUnits(env);
  const wu = knownWu(state, wuId);
  const rel = stampRelativePath(wuId);
  const path = join(env.workspace, rel);
  if (wu.stamped !== null) {
    writeIfChanged(env.workspace, path, stampContent(wuId, wu.stamped.title, wu.stamped.completed_date), FileAccess.private);
    return { wu_id: wuId, stamp_path: rel, already_exists: true, appended: [] };
  }
  const onDisk = readIfFile(env.workspace, path);
  const fileValid = isValidStamp(wuId, onDisk) || (wu.stamp_file?.present === true && wu.stamp_file.valid);
  const lifecycle = fileValid ? { ...wu.lifecycle, stamp_file: true } : wu.lifecycle;
  if (stepWu(lifecycle, { type: 'STAMP' }) === null) {
    throw new BatonError(ErrorCode.ILLEGAL_TRANSITION, `wu done is not allowed while ${wuId} is ${wu.lifecycle.state} (claim it first)`, { wu_id: wuId, state: wu.lifecycle.state });
  }
  const title = wu.def.title ?? wuId;
  const completed = env.now.slice(0, 10);
  const result = await appendAs(env, [{ type: 'wu.stamped', stream, data: { wu_id: wuId, title, completed_date: completed, stamp_path: rel } }], { [stream]: version });
  // A valid hand-written (or LumenFlow) stamp is kept as it is.
  if (!isValidStamp(wuId, onDisk)) writeIfChanged(env.workspace, path, stampContent(wuId, title, completed), FileAccess.private);
  return { wu_id: wuId, stamp_path: rel, already_exists: fileValid, appended: appendedOf(result) };
}

/** `.baton/stamps/<WU>.done` is a projection of `wu.stamped`: restore every missing or altered one. */
export function restoreStamps(env: WorkUnitsEnv, state: WorkUnitsState): number {
  let written = 0;
  for (const wu of Object.values(state.wus)) {
    if (wu.stamped === null) continue;
    if (writeIfChanged(env.workspace, join(env.workspace, stampRelativePath(wu.wu_id)), stampContent(wu.wu_id, wu.stamped.title, wu.stamped.completed_date), FileAccess.private)) written++;
  }
  return written;
}
