import { canonicalValue } from '../events/canonical.js';
import { LUMENFLOW_WU_EVENT_KINDS, ObservationLumenflowWuEventData } from '../events/work-units/lumenflow.js';
import { describeZodIssues } from '../events/validation.js';
import type { WorkUnitsState } from '../projections/work-units/state.js';
import type { ProposedEvent } from './decision.js';
import { compareWithObserved, withoutDuplicates, type ImportFileRow, type ParsedWuFile } from './wu-yaml.js';

/**
 * The sources of a LumenFlow repository as `import lumenflow` read them (initiative YAML,
 * `wu-events.jsonl`, WU YAML, stamps), each compared here with what the fold read last recorded:
 * only what changed, or is new, becomes an event. Reading and parsing the files is the caller's.
 */

/** An initiative YAML file, in name order. */
export type InitiativeFile =
  /** A file that could not be read (too large, unreadable): the failure, said. */
  | { display: string; unreadable: string }
  | {
      display: string;
      /** The initiative its name says (`INIT-1.yaml` → INIT-1). */
      named: string;
      content_hash: string;
      /** What the file says; null when its bytes are those the fold read last recorded for `named` (it was not parsed). */
      parsed: InitiativeParse | null;
    };

export type InitiativeParse =
  /** Not YAML, or not a mapping. */
  | { failure: string }
  /** Its id (null: not an initiative id), and its checked fields or each problem with them. */
  | { id: string | null; fields: Record<string, unknown> | null; problems: string[] };

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

type ParsedInitiative = Extract<InitiativeParse, { id: string | null }>;

/** One file's fields against the initiative's as last observed from YAML: its row, and its event when any field differs. */
function compareInitiative(
  state: WorkUnitsState,
  display: string,
  content_hash: string,
  id: string,
  fields: Record<string, unknown>,
  plan: InitiativePlan,
): void {
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
    return;
  }
  plan.events.push({
    type: 'observation.initiative_yaml',
    stream: `initiative/${id}`,
    data: { initiative: id, path: display, content_hash, fields: changed, removed_fields: removed },
  });
  plan.rows.push({ path: display, initiative: id, result: first ? 'defined' : 'changed', changed_fields: changedFields });
}

/** Initiative files as `observation.initiative_yaml`s: one per initiative whose read fields changed, holding only those. */
export function planInitiatives(files: readonly InitiativeFile[], state: WorkUnitsState): InitiativePlan {
  const plan: InitiativePlan = { rows: [], events: [], failures: [], defined: new Set() };
  const seen = new Map<string, string>();
  for (const file of files) {
    if ('unreadable' in file) {
      plan.failures.push(file.unreadable);
      continue;
    }
    const { display, named, parsed } = file;
    if (parsed === null) {
      // Bytes exactly as last recorded for the initiative the file is named after: unchanged.
      const slug = Object.hasOwn(state.initiatives, named) ? state.initiatives[named]!.slug : null;
      seen.set(named, display);
      plan.defined.add(named);
      if (slug !== null) plan.defined.add(slug);
      plan.rows.push({ path: display, initiative: named, result: 'unchanged', changed_fields: [] });
      continue;
    }
    if ('failure' in parsed) {
      plan.failures.push(parsed.failure);
      continue;
    }
    const checked: ParsedInitiative = parsed;
    if (checked.id === null) {
      plan.failures.push(`${display}: id: must match ^INIT-[0-9A-Z][0-9A-Z-]*$`);
      continue;
    }
    const other = seen.get(checked.id);
    if (other !== undefined) {
      plan.failures.push(`${display}: id: ${checked.id} is also defined by ${other}`);
      continue;
    }
    seen.set(checked.id, display);
    if (checked.fields === null) {
      for (const p of checked.problems) plan.failures.push(`${display}: ${p}`);
      continue;
    }
    plan.defined.add(checked.id);
    if (typeof checked.fields['slug'] === 'string') plan.defined.add(checked.fields['slug']);
    compareInitiative(state, display, file.content_hash, checked.id, checked.fields, plan);
  }
  return plan;
}

/** LumenFlow's `wu-events.jsonl` as read: its non-blank lines, each with its number and its key (a digest of both). */
export interface HistorySource {
  /** Where the file is (as recorded), or null when there is none. */
  path: string | null;
  lines: readonly { line: number; text: string; key: string }[];
}

export interface MalformedLine {
  line: number;
  message: string;
}

export interface WuEventsPlan {
  path: string | null;
  lines: number;
  already_imported: number;
  events: ProposedEvent[];
  malformed: MalformedLine[];
}

/** camelCase key of a line → the snake_case field of the event. */
const KEYS: readonly (readonly [string, string])[] = [
  ['lane', 'lane'],
  ['title', 'title'],
  ['note', 'note'],
  ['sessionId', 'session_id'],
  ['progress', 'progress'],
  ['nextSteps', 'next_steps'],
  ['reason', 'reason'],
  ['parentWuId', 'parent_wu_id'],
  ['delegationId', 'delegation_id'],
];

function parseLine(text: string, line: number, key: string): { data: Record<string, unknown> } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: 'not valid JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { error: 'must be a JSON object' };
  const r = raw as Record<string, unknown>;
  if (!(LUMENFLOW_WU_EVENT_KINDS as readonly unknown[]).includes(r['type'])) return { error: `type: must be one of ${LUMENFLOW_WU_EVENT_KINDS.join(', ')}` };
  const stamp = typeof r['timestamp'] === 'string' ? Date.parse(r['timestamp']) : Number.NaN;
  if (Number.isNaN(stamp)) return { error: 'timestamp: must be an ISO-8601 time' };
  const data: Record<string, unknown> = { wu_id: r['wuId'], kind: r['type'], timestamp: new Date(stamp).toISOString(), line, line_key: key };
  for (const [from, to] of KEYS) {
    const v = r[from];
    if (typeof v === 'string' && v.trim() !== '') data[to] = v.trim();
    else if (typeof v === 'number') data[to] = String(v);
  }
  const checked = ObservationLumenflowWuEventData.safeParse(data);
  if (!checked.success) {
    const p = describeZodIssues(checked.error)[0];
    const field = p?.field === 'wu_id' ? 'wuId' : (KEYS.find(([, to]) => to === p?.field)?.[0] ?? p?.field ?? '(line)');
    return { error: `${field}: ${p?.rule ?? 'invalid'}` };
  }
  return { data: checked.data as Record<string, unknown> };
}

/**
 * The WU history as `observation.lumenflow_wu_event`s carrying their original timestamps. Each line
 * is keyed by its number and text: a line the log already holds is skipped, a malformed one is
 * reported with its number and skipped — it never poisons the rest.
 */
export function planWuEvents(history: HistorySource, state: WorkUnitsState): WuEventsPlan {
  const imported = state.lumenflow_lines ?? {};
  const plan: WuEventsPlan = { path: history.path, lines: 0, already_imported: 0, events: [], malformed: [] };
  for (const { line, text, key } of history.lines) {
    plan.lines++;
    if (Object.hasOwn(imported, key)) {
      plan.already_imported++;
      continue;
    }
    const parsed = parseLine(text, line, key);
    if ('error' in parsed) plan.malformed.push({ line, message: parsed.error });
    else plan.events.push({ type: 'observation.lumenflow_wu_event', stream: `wu/${String(parsed.data['wu_id'])}`, data: parsed.data });
  }
  return plan;
}

/** The WU YAML folder as read. */
export interface WuYamlFiles {
  /** Files whose bytes are those the fold read last recorded for the WU their name says: unchanged, not parsed. */
  same: readonly { display: string; wu_id: string }[];
  /** The other files, parsed, in order (null: a file that failed, said in `failures`). */
  parsed: readonly (ParsedWuFile | null)[];
  failures: readonly string[];
}

/** The WU folder as `wu import` compares it, a WU id in two files (parsed or not) a failure. */
export function planWuYaml(files: WuYamlFiles, state: WorkUnitsState): { rows: ImportFileRow[]; events: ProposedEvent[]; failures: string[] } {
  const failures = [...files.failures];
  const plan = files.parsed.length > 0 ? compareWithObserved(state, withoutDuplicates(files.parsed, failures)) : { rows: [], events: [] };
  const parsedFailures = failures.length;
  const unchanged: ImportFileRow[] = files.same.map((f) => ({ path: f.display, wu_id: f.wu_id, result: 'unchanged', changed_fields: [] }));
  const known = new Map(unchanged.map((r) => [r.wu_id, r.path]));
  for (const row of plan.rows) {
    const other = row.wu_id !== null ? known.get(row.wu_id) : undefined;
    if (other !== undefined) failures.push(`${row.path}: id: ${row.wu_id} is also defined by ${other}`);
  }
  const rows = [...unchanged, ...plan.rows].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { rows, events: failures.length > parsedFailures ? plan.events.filter((e) => !known.has(String(e.data['wu_id']))) : plan.events, failures };
}

/** A `WU-<n>.done` file of LumenFlow's stamps folder, in name order. */
export interface StampFile {
  wu_id: string;
  path: string;
  /** Its text is Baton's and LumenFlow's usual two lines. */
  recognised: boolean;
}

export interface StampsPlan {
  files: StampFile[];
  events: ProposedEvent[];
}

/** One `observation.stamp_file` per stamp not yet recorded as present, and per recorded one now gone from the folder. */
export function planStamps(files: readonly (StampFile & { content_hash: string })[], folderDisplay: string, state: WorkUnitsState): StampsPlan {
  const events: ProposedEvent[] = [];
  const present = new Set<string>();
  for (const file of files) {
    present.add(file.wu_id);
    const wu = state.wus[file.wu_id];
    if (wu?.stamped !== undefined && wu.stamped !== null) continue;
    const last = wu?.stamp_file ?? null;
    if (last === null || last.path !== file.path || !last.present || !last.valid) {
      events.push({
        type: 'observation.stamp_file',
        stream: `wu/${file.wu_id}`,
        data: { wu_id: file.wu_id, path: file.path, present: true, valid: true, content_hash: file.content_hash },
      });
    }
  }
  const prefix = `${folderDisplay}/`;
  for (const wu of Object.values(state.wus)) {
    const last = wu.stamp_file;
    if (last !== null && last.present && last.path.startsWith(prefix) && !present.has(wu.wu_id)) {
      events.push({
        type: 'observation.stamp_file',
        stream: `wu/${wu.wu_id}`,
        data: { wu_id: wu.wu_id, path: last.path, present: false, valid: false, content_hash: null },
      });
    }
  }
  return { files: files.map(({ wu_id, path, recognised }) => ({ wu_id, path, recognised })), events };
}
