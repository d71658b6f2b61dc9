import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DefinitionFields, type DefinitionField } from '../../events/work-units/definition.js';
import { compareWuIds, WU_ID_PATTERN, YAML_STATUSES } from '../../events/work-units/vocabulary.js';
import { describeZodIssues } from '../../events/validation.js';
import { BatonError, ErrorCode } from '../errors.js';
import { INPUT_LIMITS, InputRefused, readInputFile } from '../input/bounded-input.js';
import { decideWuImport, withoutDuplicates, type ImportFileRow, type ParsedWuFile } from '../../deciders/wu-yaml.js';
import { loadWorkUnits, runWorkUnitsCommand, type WorkUnitsEnv } from './env.js';

/**
 * `wu import` of LumenFlow WU YAML (work-units.md §4): every file is read and validated before
 * the log is read; one bad file (or one WU id in two files) fails the whole import naming every
 * failing path, field and rule. What to append is decided on the fold (deciders/wu-yaml.ts): a
 * re-import appends one `observation.wu_yaml` per WU whose read fields changed, holding only those.
 */
/** The YAML keys read (§3.1), besides `id`. */
const READ_KEYS: readonly DefinitionField[] = [
  'initiative',
  'title',
  'description',
  'acceptance',
  'lane',
  'type',
  'priority',
  'dependencies',
  'blocked_by',
  'blocks',
  'code_paths',
  'phase',
  'labels',
  'created',
  'claimed_mode',
  'claimed_branch',
  'claimed_at',
  'worktree_path',
  'blocked_reason',
  'completed_at',
  'status',
];
const ID_LISTS = new Set<string>(['dependencies', 'blocked_by', 'blocks']);
const STRING_LISTS = new Set<string>(['acceptance', 'labels', 'code_paths', ...ID_LISTS]);

export { ImportResult, type ImportFileRow } from '../../deciders/wu-yaml.js';

type ParsedFile = ParsedWuFile;

export function listFiles(workspace: string, inputs: readonly string[]): string[] {
  const files: string[] = [];
  for (const input of inputs) {
    const abs = isAbsolute(input) ? input : resolve(workspace, input);
    let stat;
    try {
      stat = statSync(abs);
    } catch {
      throw new BatonError(ErrorCode.INVALID_INPUT, `${input}: no such file or folder`, { field: 'path', path: input });
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(abs).sort()) if (/\.ya?ml$/.test(name) && statSync(join(abs, name)).isFile()) files.push(join(abs, name));
    } else {
      files.push(abs);
    }
  }
  return files;
}

function displayPath(workspace: string, abs: string): string {
  const rel = relative(workspace, abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : abs;
}

/** Normalise one read value (§4.4): strings trimmed, empty optional strings dropped, id lists deduplicated. */
function normalise(key: string, value: unknown, problems: string[]): unknown {
  if (value === null || value === undefined) return undefined;
  if (STRING_LISTS.has(key)) {
    if (!Array.isArray(value)) {
      problems.push(`${key}: must be a list`);
      return undefined;
    }
    const items: string[] = [];
    value.forEach((item, i) => {
      if (typeof item === 'number' || typeof item === 'boolean') item = String(item);
      if (typeof item !== 'string') return problems.push(`${key}[${i}]: must be text (nested mappings and lists are not allowed)`);
      const t = item.trim();
      if (t !== '') items.push(t);
    });
    return ID_LISTS.has(key) ? [...new Set(items)].sort(compareWuIds) : items;
  }
  if (key === 'phase') return value;
  if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
  if (typeof value !== 'string') {
    problems.push(`${key}: must be text`);
    return undefined;
  }
  const t = value.trim();
  return t === '' ? undefined : t;
}

export function parseFile(workspace: string, abs: string, failures: string[]): ParsedFile | null {
  const display = displayPath(workspace, abs);
  let bytes: Buffer;
  try {
    // At most 1 MiB (§4.4), and a file or a named pipe the user named: never a device or a folder.
    bytes = readInputFile(abs, 'path', INPUT_LIMITS.yaml);
  } catch (error) {
    failures.push(`${display}: file: ${error instanceof InputRefused ? error.reason : `cannot be read (${(error as Error).message})`}`);
    return null;
  }
  let doc: unknown;
  try {
    doc = parseYaml(bytes.toString('utf8'), { schema: 'core', customTags: [], uniqueKeys: true });
  } catch (error) {
    failures.push(`${display}: yaml: ${(error as Error).message.split('\n')[0]}`);
    return null;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    failures.push(`${display}: (root): must be a mapping`);
    return null;
  }
  const raw = doc as Record<string, unknown>;
  const content_hash = createHash('sha256').update(bytes).digest('hex');
  const id = typeof raw['id'] === 'string' ? raw['id'].trim() : raw['id'];
  // Not a WU file (an initiative, other YAML): skipped, reported.
  if (typeof id !== 'string' || !WU_ID_PATTERN.test(id)) return { path: abs, display, wu_id: null, fields: {}, content_hash };
  const problems: string[] = [];
  const fields: Record<string, unknown> = {};
  for (const key of READ_KEYS) {
    if (!Object.hasOwn(raw, key)) continue;
    const value = normalise(key, raw[key], problems);
    if (value !== undefined) fields[key] = value;
  }
  for (const key of ['title', 'lane', 'status'] as const) if (fields[key] === undefined) problems.push(`${key}: required`);
  if (typeof fields['status'] === 'string' && !(YAML_STATUSES as readonly string[]).includes(fields['status'])) {
    problems.push(`status: must be one of ${YAML_STATUSES.join(', ')}`);
    delete fields['status'];
  }
  const checked = DefinitionFields.safeParse(fields);
  if (!checked.success)
    for (const p of describeZodIssues(checked.error))
      if (!problems.some((q) => q.startsWith(`${p.field.split('.')[0]}:`))) problems.push(`${p.field}: ${p.rule}`);
  if (problems.length > 0) {
    for (const p of problems) failures.push(`${display}: ${p}`);
    return null;
  }
  return { path: abs, display, wu_id: id, fields: checked.success ? (checked.data as Record<string, unknown>) : fields, content_hash };
}

/** The files read and parsed, in order (null: a file that failed, said in `failures`). */
export interface ReadWuFiles {
  parsed: (ParsedFile | null)[];
  failures: string[];
}

/**
 * Read and parse the files and folders named. Strict (the import): a path that does not exist is
 * the error. Lenient (LumenFlow's WU folder): it is a failure like a bad file's.
 */
export function readWuFiles(workspace: string, inputs: readonly string[], lenient: boolean): ReadWuFiles {
  const failures: string[] = [];
  let files: string[];
  try {
    files = listFiles(workspace, inputs);
  } catch (error) {
    if (!lenient) throw error;
    return { parsed: [], failures: [(error as Error).message] };
  }
  return { parsed: files.map((f) => parseFile(workspace, f, failures)), failures };
}

export async function importWuYaml(env: WorkUnitsEnv, inputs: readonly string[]): Promise<{ files: ImportFileRow[]; appended: number }> {
  if (inputs.length === 0) throw new BatonError(ErrorCode.INVALID_INPUT, 'paths: give at least one file or folder', { field: 'paths' });
  const read = readWuFiles(env.workspace, inputs, false);
  const files = withoutDuplicates(read.parsed, read.failures);
  if (read.failures.length > 0) {
    throw new BatonError(ErrorCode.INVALID_INPUT, `wu import failed; nothing was imported:\n${read.failures.join('\n')}`, { failures: read.failures });
  }
  const handled = await runWorkUnitsCommand(
    env,
    async () => (await loadWorkUnits(env)).state,
    (state) => decideWuImport({ files }, state),
  );
  return { files: handled.decision!.outcome.files, appended: handled.appended.length };
}
