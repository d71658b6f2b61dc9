import { createHash } from 'node:crypto';
import { readdirSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { writeFileAtomic } from '../artifacts/atomic-write.js';
import { readFileNoFollow } from '../artifacts/owned-paths.js';
import { INPUT_LIMITS, readInputFile } from '../input/bounded-input.js';
import { compareWithObserved, ImportResult, laterDefinitions, type ObservationPlan } from '../../deciders/wu-yaml.js';

/**
 * The WU YAML probe (work-units.md §4, `probes.wu_yaml_paths`) at real scale. What each
 * file said is kept in `.baton/cache/`, keyed by its path with its size, mtime, ctime and inode:
 *
 * - a file whose stat is unchanged is not read; one whose bytes hash as before is not parsed; only
 *   the rest is parsed (import.ts, which loads `yaml`, is loaded only then);
 * - a file that agreed with the log (its fields equal the WU's YAML definition when the WU's last
 *   YAML observation had content hash H) still agrees while the file is unchanged and the WU's
 *   last YAML observation is still H: its fields are not even loaded. Any other file is compared
 *   with the log as `wu import` compares (deciders/wu-yaml.ts), so the log stays the only truth.
 *
 * `wu-yaml-probe.json` holds the stats, hashes and problems (read on every run); the parsed fields
 * are in `wu-yaml-fields.json`, read only when a file must be compared. Deleting both loses nothing.
 *
 * Problems are said once: a bad file's when its content is new (first seen, or changed), and those
 * that concern no single file's content (a missing folder, an id in two files) when the previous
 * run did not already say them.
 */
const INDEX_FILE = 'wu-yaml-probe.json';
const FIELDS_FILE = 'wu-yaml-fields.json';
/** Bump when parsing or validation changes, so results cached by an older Baton are parsed again. */
const PARSER_VERSION = 1;
/**
 * A file changed less than this before the cache is written may change again within the same
 * file-system timestamp tick without its stat showing it ("racy" in git's words): its entry is
 * kept but its bytes are hashed again on the next run.
 */
const RACY_MS = 2000;

interface IndexEntry {
  stat: string;
  racy: boolean;
  /** null when the file could not be read. */
  content_hash: string | null;
  /** The parse: a WU id, null for a YAML file that is not a WU's (skipped), or the problems. */
  wu_id: string | null;
  failures: string[] | null;
  /** The WU's YAML content hash in the log when this file was last found equal to it. */
  agreed: string | null;
}

interface IndexFile {
  v: 1;
  parser: number;
  entries: Record<string, IndexEntry>;
  said: string[];
}

interface FieldsFile {
  v: 1;
  parser: number;
  fields: Record<string, { content_hash: string; fields: Record<string, unknown> }>;
}

export interface YamlProbeOutcome extends ObservationPlan {
  /** Problems to say now (each said once, see above). */
  warnings: string[];
  /** Every problem of this run, said or not. */
  failures: string[];
  /** Files read and parsed this run (the rest came from the cache). */
  parsed: number;
  /** Files compared with the log field by field (the rest agreed already). */
  compared: number;
}

function displayPath(workspace: string, abs: string): string {
  const rel = relative(workspace, abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : abs;
}

function readJson<T extends { v: 1; parser: number }>(path: string, valid: (value: T) => boolean): T | undefined {
  try {
    const bytes = readFileNoFollow(path);
    if (bytes === undefined) return undefined;
    const value = JSON.parse(bytes.toString('utf8')) as T;
    return value !== null && typeof value === 'object' && value.v === 1 && value.parser === PARSER_VERSION && valid(value) ? value : undefined;
  } catch {
    // A cache that cannot be read or trusted is rebuilt.
    return undefined;
  }
}

const statKey = (s: Stats): string => `${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}`;

/** A listed file: its stat reduced at once to the cache key and whether it is racy (the Stats object is not kept). */
interface ListedFile {
  abs: string;
  display: string;
  key: string;
  racy: boolean;
}

/**
 * The files the configured paths name, as `wu import` lists them; an unusable path is a problem.
 * `nowMs` judges which are racy (see RACY_MS).
 */
function listYamlFiles(workspace: string, inputs: readonly string[], problems: string[], nowMs: number): ListedFile[] {
  const files: ListedFile[] = [];
  const listed = (abs: string, display: string, s: Stats): void => {
    files.push({ abs, display, key: statKey(s), racy: nowMs - s.mtimeMs < RACY_MS || nowMs - s.ctimeMs < RACY_MS });
  };
  for (const input of inputs) {
    const abs = isAbsolute(input) ? input : resolve(workspace, input);
    const stat = statSync(abs, { throwIfNoEntry: false });
    if (stat === undefined) {
      problems.push(`${input}: no such file or folder`);
      continue;
    }
    if (!stat.isDirectory()) {
      listed(abs, displayPath(workspace, abs), stat);
      continue;
    }
    let names: string[];
    try {
      names = readdirSync(abs).sort();
    } catch (error) {
      problems.push(`${input}: folder cannot be read (${(error as Error).message})`);
      continue;
    }
    // One relative path per folder, not per file (path.relative is not cheap 1,400 times over).
    const folderDisplay = displayPath(workspace, abs);
    const prefix = folderDisplay === abs ? `${abs}${sep}` : `${folderDisplay}/`;
    for (const name of names) {
      if (!name.endsWith('.yaml') && !name.endsWith('.yml')) continue;
      const path = `${abs}${sep}${name}`;
      // undefined: vanished between the listing and the stat, so not there.
      const s = statSync(path, { throwIfNoEntry: false });
      if (s !== undefined && s.isFile()) listed(path, `${prefix}${name}`, s);
    }
  }
  return files;
}

interface Seen {
  abs: string;
  display: string;
  entry: IndexEntry;
  /** Fields parsed in this run, when it parsed the file. */
  fields?: Record<string, unknown>;
}

export async function probeWuYaml(workspace: string, cacheDir: string, state: WorkUnitsState, inputs: readonly string[]): Promise<YamlProbeOutcome> {
  return (await prepareWuYaml(workspace, cacheDir, inputs))(state);
}

/**
 * The probe in two steps: what needs no state (listing, stat, the cache, reading and parsing what
 * changed), then, given the fold's state, the comparison. `orchestrate status` runs the first step
 * before it folds the log: the probe's short-lived garbage is then collected while the heap is
 * still small, instead of making the collector copy a freshly decoded state again.
 */
export async function prepareWuYaml(
  workspace: string,
  cacheDir: string,
  inputs: readonly string[],
): Promise<(state: WorkUnitsState) => Promise<YamlProbeOutcome>> {
  const run = new YamlProbeRun(workspace, cacheDir);
  // Wall-clock time only to judge file-system timestamps (racy entries), never a domain time.
  const files = listYamlFiles(workspace, inputs, run.workspaceProblems, Date.now());
  for (const file of files) await run.see(file);
  return (state) => run.compare(state);
}

/** One run of the probe: the cache as found, each file as seen, and what the run found to say. */
class YamlProbeRun {
  private readonly indexPath: string;
  private readonly fieldsPath: string;
  private readonly index: IndexFile;
  private storedFields: FieldsFile['fields'] | undefined;
  readonly workspaceProblems: string[] = [];
  private readonly warnings: string[] = [];
  private readonly fileProblems: string[] = [];
  private parse: typeof import('./import.js').parseFile | undefined;
  private parsed = 0;
  private fieldsChanged = false;
  /**
   * Whether the index must be rewritten: an entry was made anew (a file new, changed, or touched
   * lately), or one kept as it was found (the same object) had its agreement move.
   */
  private entriesChanged = false;
  private readonly seenFiles: Seen[] = [];

  constructor(
    private readonly workspace: string,
    cacheDir: string,
  ) {
    this.indexPath = join(cacheDir, INDEX_FILE);
    this.fieldsPath = join(cacheDir, FIELDS_FILE);
    this.index = readJson<IndexFile>(this.indexPath, (v) => typeof v.entries === 'object' && v.entries !== null && Array.isArray(v.said)) ?? {
      v: 1,
      parser: PARSER_VERSION,
      entries: {},
      said: [],
    };
  }

  private fieldsOf(display: string, hash: string | null): Record<string, unknown> | undefined {
    this.storedFields ??= readJson<FieldsFile>(this.fieldsPath, (v) => typeof v.fields === 'object' && v.fields !== null)?.fields ?? {};
    const stored = Object.hasOwn(this.storedFields, display) ? this.storedFields[display] : undefined;
    return stored !== undefined && stored.content_hash === hash ? stored.fields : undefined;
  }

  private async parseNow(seen: Seen, hash: string | null): Promise<void> {
    this.parse ??= (await import('./import.js')).parseFile;
    const failures: string[] = [];
    const result = this.parse(this.workspace, seen.abs, failures);
    this.parsed += 1;
    this.fieldsChanged = true;
    seen.entry.failures = result === null ? failures : null;
    seen.entry.wu_id = result === null ? null : result.wu_id;
    seen.entry.content_hash = result === null ? hash : result.content_hash;
    seen.entry.agreed = null;
    if (result !== null) seen.fields = result.fields;
    else this.warnings.push(...failures); // new content: its problems are said now, once
  }

  /** A listed file: kept as the cache knows it when unchanged, else read, and parsed when its bytes are new. */
  async see({ abs, display, key, racy }: ListedFile): Promise<void> {
    const index = this.index;
    const known = Object.hasOwn(index.entries, display) ? index.entries[display] : undefined;
    if (known !== undefined && !known.racy && known.stat === key && !racy) {
      // Unchanged, and settled: the entry as it was (most files of most runs).
      this.seenFiles.push({ abs, display, entry: known });
      return;
    }
    const entry: IndexEntry = { stat: key, racy, content_hash: null, wu_id: null, failures: null, agreed: null };
    this.entriesChanged = true;
    const seen: Seen = { abs, display, entry };
    this.seenFiles.push(seen);
    if (known !== undefined && !known.racy && known.stat === key) {
      Object.assign(entry, { content_hash: known.content_hash, wu_id: known.wu_id, failures: known.failures, agreed: known.agreed });
      return;
    }
    let bytes: Buffer | null;
    try {
      // Over the limit (or no longer a file): null, and the parser says why.
      bytes = readInputFile(abs, 'path', INPUT_LIMITS.yaml, { namedPipe: 'refuse' });
    } catch {
      bytes = null;
    }
    const hash = bytes === null ? null : createHash('sha256').update(bytes).digest('hex');
    if (known !== undefined && hash !== null && known.content_hash === hash) {
      Object.assign(entry, { content_hash: known.content_hash, wu_id: known.wu_id, failures: known.failures, agreed: known.agreed });
    } else {
      await this.parseNow(seen, hash);
    }
  }

  /** Given the fold's state, the comparison of every file seen; then the cache is saved. */
  async compare(state: WorkUnitsState): Promise<YamlProbeOutcome> {
    // Duplicate ids are judged over every file, agreed or not.
    const duplicates = laterDefinitions(
      this.seenFiles.filter((s) => s.entry.failures === null),
      (s) => s.entry.wu_id,
      (s) => s.display,
      this.workspaceProblems,
    );
    const plan: ObservationPlan = { rows: [], events: [] };
    let compared = 0;
    for (const seen of this.seenFiles) {
      const { entry } = seen;
      if (entry.failures !== null) {
        this.fileProblems.push(...entry.failures);
        continue;
      }
      if (duplicates.has(seen)) continue;
      if (entry.wu_id === null) {
        plan.rows.push({ path: seen.display, wu_id: null, result: ImportResult.skipped, changed_fields: [] });
        continue;
      }
      const logHash = state.wus[entry.wu_id]?.yaml_content_hash ?? null;
      if (entry.agreed !== null && logHash === entry.agreed) {
        plan.rows.push({ path: seen.display, wu_id: entry.wu_id, result: ImportResult.unchanged, changed_fields: [] });
        continue;
      }
      if (await this.compareOne(state, seen, entry.wu_id, logHash, plan)) compared += 1;
    }
    this.save();
    return { ...plan, warnings: this.warnings, failures: [...this.fileProblems, ...this.workspaceProblems], parsed: this.parsed, compared };
  }

  /** Compares one file's fields with the log into `plan`; false when they could not be had. */
  private async compareOne(state: WorkUnitsState, seen: Seen, wuId: string, logHash: string | null, plan: ObservationPlan): Promise<boolean> {
    const { entry } = seen;
    let fields = seen.fields ?? this.fieldsOf(seen.display, entry.content_hash);
    if (fields === undefined) {
      // The fields file lost it (deleted, or written by another run): parse once more.
      await this.parseNow(seen, entry.content_hash);
      const failures = entry.failures as string[] | null;
      if (failures !== null) {
        this.fileProblems.push(...failures);
        return false;
      }
      fields = seen.fields!;
    }
    const one = compareWithObserved(state, [{ path: seen.abs, display: seen.display, wu_id: wuId, fields, content_hash: entry.content_hash ?? '' }]);
    plan.rows.push(...one.rows);
    plan.events.push(...one.events);
    if (one.events.length === 0 && entry.agreed !== logHash) {
      entry.agreed = logHash;
      this.entriesChanged = true;
    }
    seen.fields = fields;
    return true;
  }

  /** The problems new since the last run become warnings; the index and fields files are rewritten when they changed. */
  private save(): void {
    const { index, seenFiles } = this;
    const previouslySaid = new Set(index.said);
    for (const problem of this.workspaceProblems) if (!previouslySaid.has(problem)) this.warnings.push(problem);
    const said = [...this.workspaceProblems].sort();
    const entries: Record<string, IndexEntry> = {};
    // Rewritten only when something in it changed (most runs: nothing did).
    const indexChanged =
      this.entriesChanged || this.fieldsChanged || seenFiles.length !== Object.keys(index.entries).length || said.join('\n') !== index.said.join('\n');
    for (const s of seenFiles) entries[s.display] = s.entry;
    try {
      if (this.fieldsChanged || Object.keys(index.entries).length !== seenFiles.length) {
        const fields: FieldsFile['fields'] = {};
        for (const s of seenFiles) {
          const f = s.fields ?? (s.entry.failures === null && s.entry.wu_id !== null ? this.fieldsOf(s.display, s.entry.content_hash) : undefined);
          if (f !== undefined && s.entry.content_hash !== null) fields[s.display] = { content_hash: s.entry.content_hash, fields: f };
        }
        writeFileAtomic(this.workspace, this.fieldsPath, JSON.stringify({ v: 1, parser: PARSER_VERSION, fields } satisfies FieldsFile), 'private');
      }
      if (indexChanged)
        writeFileAtomic(this.workspace, this.indexPath, JSON.stringify({ v: 1, parser: PARSER_VERSION, entries, said } satisfies IndexFile), 'private');
    } catch {
      // A cache that cannot be written only makes the next run slower.
    }
  }
}
