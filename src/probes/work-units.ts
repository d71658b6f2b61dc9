import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { compareWuIds, WU_ID_PATTERN } from '../../events/work-units/terms.js';
import { overlappingPaths } from '../../projections/work-units/code-paths.js';
import { evidenceOf, isDone, stallSeconds } from '../../projections/work-units/evidence.js';
import type { WorkUnitsConfig } from '../../projections/work-units/settings.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { isValidStamp } from '../work-units/stamps.js';
import { INPUT_LIMITS, readInputFile } from '../input/bounded-input.js';
import { gitTopLevel, runGit } from './git.js';
import { BATON_DIR_NAME, STAMPS_RELATIVE_DIR } from '../store/jsonl/layout.js';

/**
 * The work-unit probes (work-units.md §5.2): worktrees, branches, dirty paths of the root checkout,
 * stamp files. Each compares what it sees with the latest recorded observation and proposes an
 * observation event only on a difference, in the order dirty, then per WU (numeric) worktree,
 * branch, stamp. Skipped outside a git repository or when `probes.enabled` is false, so tests and
 * non-git workspaces keep the observations they injected.
 */
export interface ObservationEvent {
  type: string;
  stream: string;
  data: Record<string, unknown>;
}

interface WorktreeEntry {
  path: string;
  branch: string | null;
  prunable: boolean;
}

function worktreeList(root: string): WorktreeEntry[] {
  const r = runGit(root, ['worktree', 'list', '--porcelain']);
  if (r === null || r.status !== 0) return [];
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('worktree ')) {
      current = { path: resolve(line.slice('worktree '.length)), branch: null, prunable: false };
      entries.push(current);
    } else if (current !== null && line.startsWith('branch ')) {
      current.branch = line.slice('branch '.length).replace(/^refs\/heads\//, '');
    } else if (current !== null && line.startsWith('prunable')) {
      current.prunable = true;
    }
  }
  return entries;
}

/** Modified, added, deleted, untracked and both sides of renames, minus `.baton/**` and the ignore globs. */
export function dirtyPaths(root: string, ignore: readonly string[]): string[] {
  const r = runGit(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  if (r === null || r.status !== 0) return [];
  const parts = r.stdout.split('\0');
  const paths = new Set<string>();
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry.length < 4) continue;
    const xy = entry.slice(0, 2);
    paths.add(entry.slice(3));
    // A rename or copy is followed by its source path.
    if (xy.includes('R') || xy.includes('C')) paths.add(parts[++i] ?? '');
  }
  return [...paths]
    .filter((p) => p !== '' && p !== BATON_DIR_NAME && !p.startsWith(`${BATON_DIR_NAME}/`))
    .filter((p) => overlappingPaths([p], ignore).length === 0)
    .sort();
}

/** The local branches (refs/heads/*, loose and packed), by name; empty when git fails. */
function localBranches(root: string): Set<string> {
  const r = runGit(root, ['for-each-ref', '--format=%(refname)', 'refs/heads/']);
  if (r === null || r.status !== 0) return new Set();
  return new Set(
    r.stdout
      .split('\n')
      .filter((line) => line.startsWith('refs/heads/'))
      .map((line) => line.slice('refs/heads/'.length)),
  );
}

/** The stamp folders: Baton's own, LumenFlow's default, and the one `import lumenflow` recorded. */
function stampFolders(state: WorkUnitsState): string[] {
  const recorded = state.recorded_settings?.stamps_dir;
  return [...new Set([STAMPS_RELATIVE_DIR, '.lumenflow/stamps', ...(recorded !== undefined ? [recorded] : [])])];
}

/**
 * Is the stamp file evidence? Baton's own folder keeps its format check (§5.2); in LumenFlow's
 * folders any `WU-<n>.done` counts, as LumenFlow's own check is only that the file exists.
 */
function stampCounts(folder: string, wuId: string, bytes: Buffer): boolean {
  return folder === STAMPS_RELATIVE_DIR ? isValidStamp(wuId, bytes) : true;
}

function stampFiles(workspace: string, folders: readonly string[]): { wu_id: string; path: string; bytes: Buffer; valid: boolean }[] {
  const out: { wu_id: string; path: string; bytes: Buffer; valid: boolean }[] = [];
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(isAbsolute(folder) ? folder : join(workspace, folder));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      const m = /^(WU-[0-9]{1,9})\.done$/.exec(name);
      if (!m || !WU_ID_PATTERN.test(m[1]!)) continue;
      try {
        const bytes = readInputFile(isAbsolute(folder) ? join(folder, name) : join(workspace, folder, name), 'stamp', INPUT_LIMITS.stamp, {
          namedPipe: 'refuse',
        });
        out.push({ wu_id: m[1]!, path: `${folder}/${name}`, bytes, valid: stampCounts(folder, m[1]!, bytes) });
      } catch {
        // vanished or unreadable: treated as absent
      }
    }
  }
  return out;
}

export function probeWorkUnits(workspace: string, state: WorkUnitsState, config: WorkUnitsConfig, now: string): ObservationEvent[] {
  if (!config.probes.enabled) return [];
  const root = gitTopLevel(workspace);
  // Stamp files are plain files: they are read outside git too. There only what is on disk is
  // reported (tests inject stamp observations into non-git workspaces; no file is not news there).
  if (root === null) return probeStamps(workspace, state, false);
  const events: ObservationEvent[] = [];

  const dirty = dirtyPaths(root, config.orchestration.contamination_ignore);
  const recorded = state.dirty?.paths ?? [];
  if (JSON.stringify(dirty) !== JSON.stringify(recorded)) events.push({ type: 'observation.dirty_paths', stream: 'workspace/root', data: { paths: dirty } });

  const worktrees = worktreeList(root);
  // Every local branch from one git process, asked once, when the first WU with a branch needs it
  // (a repository with 150 WUs in flight would otherwise start 150 processes per status).
  let heads: Set<string> | undefined;
  const stamps = stampFiles(workspace, stampFolders(state));
  const ctx = { state, config, now, stall_seconds: stallSeconds(config) };
  for (const wu of Object.values(state.wus).sort((a, b) => compareWuIds(a.wu_id, b.wu_id))) {
    const stream = `wu/${wu.wu_id}`;
    if (!isDone(wu) && wu.defined) {
      const e = evidenceOf(wu, ctx);
      const path = e.worktree_path.value;
      if (path !== null) {
        const abs = isAbsolute(path) ? resolve(path) : resolve(workspace, path);
        const entry = worktrees.find((w) => w.path === abs && !w.prunable);
        const seen = { present: entry !== undefined, branch: entry?.branch ?? null };
        const last = Object.hasOwn(wu.worktrees, path) ? wu.worktrees[path] : undefined;
        // Absence is news only after a presence was recorded.
        if (last === undefined ? seen.present : last.present !== seen.present || last.branch !== seen.branch) {
          events.push({ type: 'observation.worktree', stream, data: { wu_id: wu.wu_id, path, ...seen } });
        }
      }
      const branch = e.branch.value;
      if (branch !== null) {
        const present = (heads ??= localBranches(root)).has(branch);
        const last = Object.hasOwn(wu.branches, branch) ? wu.branches[branch] : undefined;
        if (last === undefined ? present : last.present !== present)
          events.push({ type: 'observation.branch', stream, data: { wu_id: wu.wu_id, branch, present } });
      }
    }
    const stamp = stampObservation(wu, stamps, true);
    if (stamp !== null) events.push(stamp);
  }
  events.push(...unseenStamps(state, stamps));
  return events;
}

type StampFile = ReturnType<typeof stampFiles>[number];

/** The stamp probe (§5.2) for one WU: Baton's own stamps (WUs with wu.stamped) are projections, not evidence. */
function stampObservation(wu: WorkUnitsState['wus'][string], stamps: readonly StampFile[], reportAbsence: boolean): ObservationEvent | null {
  if (wu.stamped !== null) return null;
  const stream = `wu/${wu.wu_id}`;
  const file = stamps.find((s) => s.wu_id === wu.wu_id);
  const last = wu.stamp_file;
  if (file !== undefined) {
    const hash = createHash('sha256').update(file.bytes).digest('hex');
    if (last === null || last.path !== file.path || !last.present || last.valid !== file.valid) {
      return { type: 'observation.stamp_file', stream, data: { wu_id: wu.wu_id, path: file.path, present: true, valid: file.valid, content_hash: hash } };
    }
  } else if (reportAbsence && last !== null && last.present) {
    return { type: 'observation.stamp_file', stream, data: { wu_id: wu.wu_id, path: last.path, present: false, valid: false, content_hash: null } };
  }
  return null;
}

/** Stamp files of WUs the log has never seen (an external dependency finished elsewhere). */
function unseenStamps(state: WorkUnitsState, stamps: readonly StampFile[]): ObservationEvent[] {
  const events: ObservationEvent[] = [];
  const seen = new Set<string>();
  for (const file of stamps) {
    if (state.wus[file.wu_id] !== undefined || seen.has(file.wu_id)) continue;
    seen.add(file.wu_id);
    const hash = createHash('sha256').update(file.bytes).digest('hex');
    events.push({
      type: 'observation.stamp_file',
      stream: `wu/${file.wu_id}`,
      data: { wu_id: file.wu_id, path: file.path, present: true, valid: file.valid, content_hash: hash },
    });
  }
  return events;
}

/** The stamp probe alone (outside git, and for `baton audit`): `reportAbsence` says a recorded stamp file that is gone. */
export function probeStamps(workspace: string, state: WorkUnitsState, reportAbsence: boolean): ObservationEvent[] {
  const stamps = stampFiles(workspace, stampFolders(state));
  if (stamps.length === 0 && !reportAbsence) return [];
  const events: ObservationEvent[] = [];
  for (const wu of Object.values(state.wus).sort((a, b) => compareWuIds(a.wu_id, b.wu_id))) {
    const stamp = stampObservation(wu, stamps, reportAbsence);
    if (stamp !== null) events.push(stamp);
  }
  events.push(...unseenStamps(state, stamps));
  return events;
}
