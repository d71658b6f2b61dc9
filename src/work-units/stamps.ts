import { join } from 'node:path';
import { FileAccess, readIfFile, writeIfChanged } from '../artifacts/atomic-write.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { appendedEvents, checkWuId, readStreamAndFold, runWorkUnitsCommand, actingSessionOf, type WorkUnitsEnv } from './env.js';
import { decideDone } from '../../deciders/work-unit-definitions.js';
import { STAMPS_RELATIVE_DIR } from '../store/jsonl/layout.js';

/**
 * Done stamps and `wu done` (work-units.md §12): `wu.stamped` is the fact; `.baton/stamps/<WU>.done`
 * is its projection, rewritten when missing or altered, never read as evidence.
 */
export function stampRelativePath(wuId: string): string {
  return `${STAMPS_RELATIVE_DIR}/${wuId}.done`;
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
  const rel = stampRelativePath(wuId);
  const path = join(env.workspace, rel);
  // The stamp file as it is before the command: a valid hand-written (or LumenFlow) one is kept.
  const onDisk = readIfFile(env.workspace, path);
  const command = {
    wuId,
    today: env.now.slice(0, 10),
    stampFileValid: isValidStamp(wuId, onDisk),
    stampPath: rel,
    session: actingSessionOf(env),
    actor: env.actor,
    now: env.now,
  };
  const handled = await runWorkUnitsCommand(env, readStreamAndFold(env, `wu/${wuId}`), (state) => decideDone(command, state));
  const done = handled.decision!.outcome;
  // The file is a projection of `wu.stamped`: (re)written unless a valid one was already there.
  if (done.stamped_before || !command.stampFileValid)
    writeIfChanged(env.workspace, path, stampContent(wuId, done.title, done.completed_date), FileAccess.private);
  return { wu_id: wuId, stamp_path: rel, already_exists: done.already_exists, appended: appendedEvents(handled.appended) };
}

/** `.baton/stamps/<WU>.done` is a projection of `wu.stamped`: restore every missing or altered one. */
export function restoreStamps(env: WorkUnitsEnv, state: WorkUnitsState): number {
  let written = 0;
  for (const wu of Object.values(state.wus)) {
    if (wu.stamped === null) continue;
    if (
      writeIfChanged(
        env.workspace,
        join(env.workspace, stampRelativePath(wu.wu_id)),
        stampContent(wu.wu_id, wu.stamped.title, wu.stamped.completed_date),
        FileAccess.private,
      )
    )
      written++;
  }
  return written;
}
