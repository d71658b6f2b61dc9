import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { INITIATIVE_ID_PATTERN, SLUG_PATTERN, WU_ID_PATTERN } from '../../../events/work-units/terms.js';
import { InitiativeFields, INITIATIVE_FIELD_NAMES } from '../../../events/work-units/lumenflow.js';
import { describeZodIssues } from '../../../events/validation.js';
import type { WorkUnitsState } from '../../../projections/work-units/state.js';
import type { InitiativeFile, InitiativeParse } from '../../../deciders/lumenflow-sources.js';
import { displayOf } from './repository.js';

/**
 * Initiative YAML files (`id`, `slug`, `title`, `status`, `phases[]`, `lanes[]`, `wus[]`,
 * `priority`, `owner`, `created`, `target_date`) read as initiative definitions; compared with the
 * fields last observed from YAML by deciders/lumenflow-sources.ts.
 */
const MAX_BYTES = 1024 * 1024;
const TEXT_KEYS = new Set(['title', 'status', 'priority', 'owner', 'created', 'target_date', 'slug']);

function normalise(key: string, value: unknown, problems: string[]): unknown {
  if (value === null || value === undefined) return undefined;
  if (TEXT_KEYS.has(key)) {
    if (value instanceof Date) return value.toISOString().slice(0, 10);
    if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
    if (typeof value !== 'string') return (problems.push(`${key}: must be text`), undefined);
    const t = value.trim();
    return t === '' ? undefined : t;
  }
  if (!Array.isArray(value)) return (problems.push(`${key}: must be a list`), undefined);
  if (key === 'phases') return value;
  const items: string[] = [];
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string') return problems.push(`${key}[${i}]: must be text`);
    if (item.trim() !== '') items.push(item.trim());
  });
  if (key === 'wus') {
    items.forEach((id, i) => {
      if (!WU_ID_PATTERN.test(id)) problems.push(`wus[${i}]: must match ^WU-[0-9]{1,9}$`);
    });
  }
  return [...new Set(items)];
}

/** The file's bytes; undefined, with the failure said, when it is not a file, too large or unreadable. */
function readInitiativeFile(abs: string, display: string, failures: string[]): Buffer | undefined {
  try {
    // Not a file (a folder named *.yaml): skipped without a word.
    if (!statSync(abs).isFile()) return undefined;
    if (statSync(abs).size > MAX_BYTES) {
      failures.push(`${display}: file: must be at most 1 MiB`);
      return undefined;
    }
    return readFileSync(abs);
  } catch (error) {
    failures.push(`${display}: file: cannot be read (${(error as Error).message})`);
    return undefined;
  }
}

/** The initiative fields of a parsed file, normalised and checked; undefined, with each problem said, when any is wrong. */
function initiativeFields(raw: Record<string, unknown>, problems: string[]): Record<string, unknown> | undefined {
  const fields: Record<string, unknown> = {};
  for (const key of INITIATIVE_FIELD_NAMES) {
    const value = normalise(key, raw[key], problems);
    if (value !== undefined) fields[key] = value;
  }
  if (typeof fields['slug'] === 'string' && !SLUG_PATTERN.test(fields['slug'])) problems.push('slug: must match ^[a-z0-9][a-z0-9-]{0,63}$');
  const checked = InitiativeFields.safeParse(fields);
  if (!checked.success)
    for (const p of describeZodIssues(checked.error))
      if (!problems.some((q) => q.startsWith(`${p.field.split('.')[0]}`))) problems.push(`${p.field}: ${p.rule}`);
  return problems.length === 0 ? fields : undefined;
}

/** What one file says: its id and checked fields, or why it cannot be read as an initiative. */
function parseInitiative(bytes: Buffer, display: string): InitiativeParse {
  let doc: unknown;
  try {
    doc = parseYaml(bytes.toString('utf8'), { schema: 'core', customTags: [], uniqueKeys: true });
  } catch (error) {
    return { failure: `${display}: yaml: ${(error as Error).message.split('\n')[0]}` };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { failure: `${display}: (root): must be a mapping` };
  const raw = doc as Record<string, unknown>;
  const id = typeof raw['id'] === 'string' ? raw['id'].trim() : raw['id'];
  if (typeof id !== 'string' || !INITIATIVE_ID_PATTERN.test(id)) return { id: null, fields: null, problems: [] };
  const problems: string[] = [];
  const fields = initiativeFields(raw, problems);
  return { id, fields: fields ?? null, problems };
}

/**
 * The initiative folder's YAML files, in name order: each read, and parsed unless its bytes are
 * exactly what `state` last recorded for the initiative it is named after (most of a re-run).
 * deciders/lumenflow-sources.ts compares them with the log.
 */
export function readInitiativeFiles(workspace: string, state: WorkUnitsState, folder: string): InitiativeFile[] {
  if (!existsSync(folder)) return [];
  const names = readdirSync(folder)
    .filter((n) => /\.ya?ml$/.test(n))
    .sort();
  const files: InitiativeFile[] = [];
  for (const name of names) {
    const abs = join(folder, name);
    const display = displayOf(workspace, abs);
    const failures: string[] = [];
    const bytes = readInitiativeFile(abs, display, failures);
    if (bytes === undefined) {
      for (const unreadable of failures) files.push({ display, unreadable });
      continue;
    }
    const content_hash = createHash('sha256').update(bytes).digest('hex');
    const named = name.replace(/\.ya?ml$/, '');
    const recorded = Object.hasOwn(state.initiatives, named) ? state.initiatives[named] : undefined;
    files.push({ display, named, content_hash, parsed: recorded?.yaml_content_hash === content_hash ? null : parseInitiative(bytes, display) });
  }
  return files;
}
