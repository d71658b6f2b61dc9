import type { WorkUnitsState } from '../projections/work-units/state.js';
import type { Decision, ProposedEvent } from './decision.js';

/**
 * The second half of `wu import` and the YAML probe (work-units.md §4.5–§4.6), apart from YAML
 * parsing so the probe can run it on cached parse results without loading `yaml` or zod: drop a
 * WU id defined by two files, then compare each file's fields with the WU's definition as last
 * observed from YAML and plan one `observation.wu_yaml` per WU whose read fields changed.
 */
export interface ParsedWuFile {
  path: string;
  display: string;
  /** null: not a WU file (an initiative, other YAML), reported as skipped. */
  wu_id: string | null;
  fields: Record<string, unknown>;
  content_hash: string;
}

export const ImportResult = { defined: 'defined', changed: 'changed', unchanged: 'unchanged', skipped: 'skipped' } as const;
export type ImportResult = (typeof ImportResult)[keyof typeof ImportResult];

export interface ImportFileRow {
  path: string;
  wu_id: string | null;
  result: ImportResult;
  changed_fields: string[];
}

export interface ObservationPlan {
  rows: ImportFileRow[];
  events: ProposedEvent[];
}

/** The files to compare, in order; a later file naming a WU an earlier one defined is a failure. */
export function withoutDuplicates(parsed: readonly (ParsedWuFile | null)[], failures: string[]): ParsedWuFile[] {
  const present = parsed.filter((p): p is ParsedWuFile => p !== null);
  const later = laterDefinitions(
    present,
    (p) => p.wu_id,
    (p) => p.display,
    failures,
  );
  return present.filter((p) => !later.has(p));
}

/**
 * The items (files, in order) whose WU id an earlier item already defines, each said as a failure.
 * An item without an id (a YAML file that is no WU's) defines nothing.
 */
export function laterDefinitions<T>(items: readonly T[], idOf: (item: T) => string | null, displayOf: (item: T) => string, failures: string[]): Set<T> {
  const firstOf = new Map<string, string>();
  const later = new Set<T>();
  for (const item of items) {
    const id = idOf(item);
    if (id === null) continue;
    const other = firstOf.get(id);
    if (other === undefined) firstOf.set(id, displayOf(item));
    else {
      failures.push(`${displayOf(item)}: id: ${id} is also defined by ${other}`);
      later.add(item);
    }
  }
  return later;
}

export function compareWithObserved(state: WorkUnitsState, usable: readonly ParsedWuFile[]): ObservationPlan {
  const rows: ImportFileRow[] = [];
  const events: ProposedEvent[] = [];
  for (const p of usable) {
    if (p.wu_id === null) {
      rows.push({ path: p.display, wu_id: null, result: ImportResult.skipped, changed_fields: [] });
      continue;
    }
    const before = state.wus[p.wu_id]?.yaml_fields ?? {};
    const first = (state.wus[p.wu_id]?.yaml_content_hash ?? null) === null;
    const changed: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(p.fields)) if (!sameJsonValue((before as Record<string, unknown>)[k], v)) changed[k] = v;
    const removed = Object.keys(before).filter((k) => !Object.hasOwn(p.fields, k));
    const changedFields = [...Object.keys(changed), ...removed];
    if (changedFields.length === 0) {
      rows.push({ path: p.display, wu_id: p.wu_id, result: ImportResult.unchanged, changed_fields: [] });
      continue;
    }
    events.push({
      type: 'observation.wu_yaml',
      stream: `wu/${p.wu_id}`,
      data: { wu_id: p.wu_id, path: p.display, content_hash: p.content_hash, fields: changed, removed_fields: removed },
    });
    rows.push({ path: p.display, wu_id: p.wu_id, result: first ? ImportResult.defined : ImportResult.changed, changed_fields: changedFields });
  }
  return { rows, events };
}

/**
 * JSON.stringify(a) === JSON.stringify(b) for the values a definition holds (text, numbers, lists
 * of text), without building the strings: the probe compares every field of every WU on each run.
 */
function sameJsonValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !sameJsonValue(a[i], b[i])) return false;
    return true;
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && !Array.isArray(a) && !Array.isArray(b))
    return JSON.stringify(a) === JSON.stringify(b);
  return false;
}

/** `wu import` of files already read and checked (every file valid, no WU id in two files). */
export interface ImportWuYaml {
  files: readonly ParsedWuFile[];
}

/**
 * `wu import` (work-units.md §4.5): compared with each WU's YAML as last observed in the fold read,
 * one `observation.wu_yaml` per WU whose read fields changed, holding only those; what the log
 * already holds is not appended again. All events go in one batch: the import is all-or-nothing.
 */
export function decideWuImport(command: ImportWuYaml, state: WorkUnitsState): Decision<{ files: ImportFileRow[] }> {
  const plan = compareWithObserved(state, command.files);
  return { events: plan.events, expected: {}, outcome: { files: plan.rows } };
}
