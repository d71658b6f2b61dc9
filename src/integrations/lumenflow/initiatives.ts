import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { canonicalValue } from '../../../events/canonical.js';
import { INITIATIVE_ID_PATTERN, SLUG_PATTERN, WU_ID_PATTERN } from '../../../events/work-units/terms.js';
import { InitiativeFields, INITIATIVE_FIELD_NAMES } from '../../../events/work-units/lumenflow.js';
import { describeZodIssues } from '../../../events/validation.js';
import type { WorkUnitsState } from '../../../projections/work-units/state.js';
import type { ProposedEvent } from '../../../deciders/decision.js';
import { displayOf } from './repository.js';

/**
 * Initiative YAML files (`id`, `slug`, `title`, `status`, `phases[]`, `lanes[]`, `wus[]`,
 * `priority`, `owner`, `created`, `target_date`) as initiative definitions: compared with the fields
 * last observed from YAML, one `observation.initiative_yaml` per initiative whose read fields
 * changed, holding only those.
 */
export interface InitiativeRow {
  path: string;
  initiative: string | null;
  result: 'defined' | 'changed' | 'unchanged';
  changed_fields: string[];
}

export interface InitiativePlan {
  rows: InitiativeRow[];
  events: ProposedEvent[];
  failures: string[];
  /** Every initiative id and slug the files define. */
  defined: Set<string>;
}

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
function initiativeFields(raw: Record<string, unknown>, display: string, failures: string[]): Record<string, unknown> | undefined {
  const problems: string[] = [];
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
  if (problems.length === 0) return fields;
  for (const p of problems) failures.push(`${display}: ${p}`);
  return undefined;
}

export function planInitiatives(workspace: string, state: WorkUnitsState, folder: string): InitiativePlan {
  const plan: InitiativePlan = { rows: [], events: [], failures: [], defined: new Set() };
  if (!existsSync(folder)) return plan;
  const names = readdirSync(folder)
    .filter((n) => /\.ya?ml$/.test(n))
    .sort();
  const seen = new Map<string, string>();
  for (const name of names) {
    const abs = join(folder, name);
    const display = displayOf(workspace, abs);
    const bytes = readInitiativeFile(abs, display, plan.failures);
    if (bytes === undefined) continue;
    // Bytes exactly as last recorded for the initiative the file is named after: unchanged, not parsed.
    const content_hash = createHash('sha256').update(bytes).digest('hex');
    const named = name.replace(/\.ya?ml$/, '');
    const recorded = Object.hasOwn(state.initiatives, named) ? state.initiatives[named] : undefined;
    if (recorded?.yaml_content_hash === content_hash) {
      seen.set(named, display);
      plan.defined.add(named);
      if (recorded.slug !== null) plan.defined.add(recorded.slug);
      plan.rows.push({ path: display, initiative: named, result: 'unchanged', changed_fields: [] });
      continue;
    }
    let doc: unknown;
    try {
      doc = parseYaml(bytes.toString('utf8'), { schema: 'core', customTags: [], uniqueKeys: true });
    } catch (error) {
      plan.failures.push(`${display}: yaml: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      plan.failures.push(`${display}: (root): must be a mapping`);
      continue;
    }
    const raw = doc as Record<string, unknown>;
    const id = typeof raw['id'] === 'string' ? raw['id'].trim() : raw['id'];
    if (typeof id !== 'string' || !INITIATIVE_ID_PATTERN.test(id)) {
      plan.failures.push(`${display}: id: must match ^INIT-[0-9A-Z][0-9A-Z-]*$`);
      continue;
    }
    const other = seen.get(id);
    if (other !== undefined) {
      plan.failures.push(`${display}: id: ${id} is also defined by ${other}`);
      continue;
    }
    seen.set(id, display);
    const fields = initiativeFields(raw, display, plan.failures);
    if (fields === undefined) continue;
    plan.defined.add(id);
    if (typeof fields['slug'] === 'string') plan.defined.add(fields['slug']);
    const record = state.initiatives[id];
    const before = record?.yaml_fields ?? {};
    const changed: Record<string, unknown> = {};
    // Stored payloads have their keys sorted (phases are mappings): compare canonical forms.
    for (const [k, v] of Object.entries(fields)) if (before[k] === undefined || canonicalValue(before[k]) !== canonicalValue(v)) changed[k] = v;
    const removed = Object.keys(before).filter((k) => !Object.hasOwn(fields, k));
    const changedFields = [...Object.keys(changed), ...removed];
    const first = record?.yaml_content_hash === undefined || record.yaml_content_hash === null;
    if (changedFields.length === 0) {
      plan.rows.push({ path: display, initiative: id, result: 'unchanged', changed_fields: [] });
      continue;
    }
    plan.events.push({
      type: 'observation.initiative_yaml',
      stream: `initiative/${id}`,
      data: { initiative: id, path: display, content_hash, fields: changed, removed_fields: removed },
    });
    plan.rows.push({ path: display, initiative: id, result: first ? 'defined' : 'changed', changed_fields: changedFields });
  }
  return plan;
}
