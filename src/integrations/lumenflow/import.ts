import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../../events/envelope.js';
import { snapshotParts } from '../../../projections/projection.js';
import { workUnitsStateProjection } from '../../../projections/work-units/fold.js';
import { applyWorkUnits, type WorkUnitsState } from '../../../projections/work-units/state.js';
import { decideLumenflowImport, type LumenflowImportOutcome, type LumenflowImportState, type LumenflowSources } from '../../../deciders/lumenflow-import.js';
import type { WuYamlFiles } from '../../../deciders/lumenflow-sources.js';
import { DEFAULT_SNAPSHOT_EVERY } from '../../store/projection-runner.js';
import { writeSnapshot } from '../../store/snapshots.js';
import { INPUT_LIMITS, readInputFile } from '../../input/bounded-input.js';
import { loadWorkUnits, runWorkUnitsCommand, type WorkUnitsEnv } from '../../work-units/env.js';
import { readWuFiles } from '../../work-units/import.js';
import { readInitiativeFiles } from './initiatives.js';
import { displayOf, readLumenflowRepository } from './repository.js';
import { readStampFolder } from './stamps.js';
import { readWuEvents } from './wu-events.js';

export { FindingSeverity, type ImportFinding } from '../../../deciders/lumenflow-import.js';

/**
 * `baton import lumenflow [REPO]`: a whole LumenFlow repository in one batch — lane
 * settings, initiative YAML, the WU history of `wu-events.jsonl`, WU YAML, stamps. The files are
 * read here, with the fold; what to append is decided by deciders/lumenflow-import.ts (only what
 * the log does not hold yet), run through the command handler (the acting-session check, one batch).
 */
export interface LumenflowImportResult extends LumenflowImportOutcome {
  appended: number;
}

export interface LumenflowImportOptions {
  repo: string;
  cwd: string;
  dryRun: boolean;
  skipInvalid: boolean;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The WU folder read for `wu import`'s comparison, except the files whose bytes are exactly what
 * the log last recorded for the WU their name says (same SHA-256): those are unchanged without being
 * parsed, which is most of a re-run.
 */
function readWuYaml(workspace: string, state: WorkUnitsState, folder: string): WuYamlFiles {
  if (!existsSync(folder)) return { same: [], parsed: [], failures: [] };
  const same: { display: string; wu_id: string }[] = [];
  const toParse: string[] = [];
  for (const name of readdirSync(folder).sort()) {
    if (!/\.ya?ml$/.test(name)) continue;
    const abs = join(folder, name);
    const recorded = state.wus[name.replace(/\.ya?ml$/, '')]?.yaml_content_hash;
    if (recorded !== undefined && recorded !== null) {
      try {
        if (
          createHash('sha256')
            .update(readInputFile(abs, 'REPO', INPUT_LIMITS.yaml, { namedPipe: 'refuse' }))
            .digest('hex') === recorded
        ) {
          same.push({ display: displayOf(workspace, abs), wu_id: name.replace(/\.ya?ml$/, '') });
          continue;
        }
      } catch {
        // unreadable: the parser reports it
      }
    }
    toParse.push(abs);
  }
  return { same, ...(toParse.length > 0 ? readWuFiles(workspace, toParse, true) : { parsed: [], failures: [] }) };
}

/** Every source of the repository, read (and parsed where the fold does not already hold its bytes). */
function readSources(env: WorkUnitsEnv, options: LumenflowImportOptions, state: WorkUnitsState): LumenflowSources {
  const repo = readLumenflowRepository(options.repo, options.cwd);
  // Every file is named by its path inside the repository, never the checkout's absolute path: the
  // same commit imported from the main checkout or a linked worktree is the same facts.
  const display = (abs: string): string => displayOf(repo.root, abs);
  return {
    repo: repo.root,
    directories: {
      wu_dir: display(repo.dirs.wuDir),
      initiatives_dir: display(repo.dirs.initiativesDir),
      stamps_dir: display(repo.dirs.stampsDir),
      state_dir: display(repo.dirs.stateDir),
    },
    settings: {
      path: display(repo.workspace_yaml ?? repo.root),
      from_file: repo.workspace_yaml !== null,
      lanes: repo.lanes,
      max_active_workers: repo.max_active_workers,
    },
    failures: repo.failures,
    initiatives: readInitiativeFiles(repo.root, state, repo.dirs.initiativesDir),
    history: readWuEvents(repo.dirs.stateDir, display),
    wus: readWuYaml(repo.root, state, repo.dirs.wuDir),
    stamps: readStampFolder(repo.dirs.stampsDir, display),
  };
}

/**
 * A large import leaves the work-unit snapshot current: the batch is folded into the state the
 * import planned from (when nothing else was appended in between), so the next command reads the
 * snapshot instead of folding thousands of events again.
 */
function snapshotAfter(env: WorkUnitsEnv, state: WorkUnitsState, seq: number, stored: readonly StoredEvent[]): void {
  if (env.cacheDir === undefined || stored.length < DEFAULT_SNAPSHOT_EVERY || stored[0]!.seq !== seq + 1) return;
  for (const event of stored) applyWorkUnits(state, env.catalog.upcast(event));
  const last = stored.at(-1)!;
  writeSnapshot(env.cacheDir, {
    name: workUnitsStateProjection.name,
    version: workUnitsStateProjection.version,
    seq: last.seq,
    hash: last.hash,
    ...snapshotParts(workUnitsStateProjection, state),
  });
}

export async function importLumenflow(env: WorkUnitsEnv, options: LumenflowImportOptions): Promise<LumenflowImportResult> {
  // One read of the log: the fold, with the repository read against it (unchanged files are not parsed).
  const read = async (): Promise<LumenflowImportState & { sources: LumenflowSources }> => {
    const { state, seq } = await loadWorkUnits(env);
    return { fold: state, seq, sources: readSources(env, options, state) };
  };
  const handled = await runWorkUnitsCommand(env, read, (s) =>
    decideLumenflowImport({ sources: s.sources, dryRun: options.dryRun, skipInvalid: options.skipInvalid, digest: sha256 }, s),
  );
  // A concurrent identical import (the same batch from the same log position) was deduplicated: nothing appended.
  const appended = handled.deduplicated ? 0 : handled.appended.length;
  if (appended > 0) snapshotAfter(env, handled.state.fold, handled.state.seq, handled.appended);
  return { ...handled.decision!.outcome, appended };
}
