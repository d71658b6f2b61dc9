import { canonicalValue } from '../events/canonical.js';
import { isTerminalYamlStatus } from '../events/work-units/terms.js';
import type { WorkUnitsState } from '../projections/work-units/state.js';
import type { Decision, ProposedEvent } from './decision.js';
import { ErrorCode } from './error-codes.js';
import {
  planInitiatives,
  planStamps,
  planWuEvents,
  planWuYaml,
  type HistorySource,
  type InitiativeFile,
  type InitiativeRow,
  type StampFile,
  type StampsPlan,
  type WuYamlFiles,
} from './lumenflow-sources.js';
import { Refusal } from './refusal.js';
import type { ImportFileRow } from './wu-yaml.js';

/**
 * `baton import lumenflow [REPO]` as a decider: a whole LumenFlow repository (lane settings,
 * initiative YAML, the WU history of `wu-events.jsonl`, WU YAML, stamps), as the caller read it,
 * compared with what the fold read last recorded, so a second run appends nothing and a later one
 * only what changed. Invalid files refuse the whole import (nothing appended) unless `skipInvalid`.
 * The batch's idempotency key binds it to the log position the fold was read at, so a concurrent
 * identical import is deduplicated, never appended twice.
 */
export const FindingSeverity = { error: 'error', integrity: 'integrity', warning: 'warning', info: 'info' } as const;
export type FindingSeverity = (typeof FindingSeverity)[keyof typeof FindingSeverity];

export interface ImportFinding {
  severity: FindingSeverity;
  code: string;
  path: string | null;
  line: number | null;
  wu_id: string | null;
  message: string;
}

/** A lane of `software_delivery.lanes.definitions`, checked. */
export interface LumenflowLane {
  name: string;
  lock_policy?: 'all' | 'active' | 'none';
  wip_limit?: number;
  code_paths?: string[];
}

/** Everything the caller read from the repository; paths as recorded (relative to the workspace when inside it). */
export interface LumenflowSources {
  /** The repository's absolute path. */
  repo: string;
  directories: { wu_dir: string; initiatives_dir: string; stamps_dir: string; state_dir: string };
  settings: {
    /** workspace.yaml's path, or the repository's when it has none. */
    path: string;
    /** The repository has a workspace.yaml. */
    from_file: boolean;
    lanes: readonly LumenflowLane[];
    max_active_workers: number | null;
  };
  /** Problems with single lane definitions, said before every other failure. */
  failures: readonly string[];
  initiatives: readonly InitiativeFile[];
  history: HistorySource;
  wus: WuYamlFiles;
  stamps: readonly (StampFile & { content_hash: string })[];
}

export interface ImportLumenflow {
  sources: LumenflowSources;
  /** Decide, report, append nothing. */
  dryRun: boolean;
  /** Import the valid files and count the others, instead of refusing the whole import. */
  skipInvalid: boolean;
  /** SHA-256 of a text, hex (the idempotency key's digest). */
  digest: (text: string) => string;
}

/** The fold and the log position it was read at. */
export interface LumenflowImportState {
  fold: WorkUnitsState;
  seq: number;
}

export interface LumenflowImportOutcome {
  repo: string;
  dry_run: boolean;
  directories: LumenflowSources['directories'];
  settings: { lanes: number; max_active_workers: number | null; recorded: boolean };
  initiatives: { defined: number; changed: number; unchanged: number; changes: InitiativeRow[] };
  wus: { defined: number; changed: number; unchanged: number; changes: ImportFileRow[] };
  wu_events: { lines: number; imported: number; already_imported: number; malformed: number };
  stamps: { files: number; recorded: number };
  skipped_invalid: number;
  findings: ImportFinding[];
}

function finding(severity: FindingSeverity, code: string, message: string, extra: Partial<Pick<ImportFinding, 'path' | 'line' | 'wu_id'>> = {}): ImportFinding {
  return { severity, code, path: extra.path ?? null, line: extra.line ?? null, wu_id: extra.wu_id ?? null, message };
}

/** `settings.recorded` when the lanes, capacity or stamps folder differ from what the log last recorded. */
function settingsEvent(sources: LumenflowSources, state: WorkUnitsState): ProposedEvent | null {
  const lanes: Record<string, Record<string, unknown>> = {};
  for (const lane of sources.settings.lanes) {
    lanes[lane.name] = {
      ...(lane.lock_policy !== undefined ? { lock_policy: lane.lock_policy } : {}),
      ...(lane.wip_limit !== undefined ? { wip_limit: lane.wip_limit } : {}),
      ...(lane.code_paths !== undefined ? { code_paths: lane.code_paths } : {}),
    };
  }
  const data = {
    source: 'lumenflow',
    path: sources.settings.path,
    lanes,
    max_active_workers: sources.settings.max_active_workers,
    stamps_dir: sources.directories.stamps_dir,
  };
  const last = state.recorded_settings;
  if (last === undefined && !sources.settings.from_file) return null;
  // Stored payloads have their keys sorted: compare canonical forms.
  if (
    last !== undefined &&
    canonicalValue({ l: last.lanes, m: last.max_active_workers, s: last.stamps_dir }) ===
      canonicalValue({ l: lanes, m: data.max_active_workers, s: data.stamps_dir })
  )
    return null;
  return { type: 'settings.recorded', stream: 'settings/lumenflow', data };
}

/** Per WU, its YAML fields once the planned observations are folded over what the log holds. */
function yamlAfter(state: WorkUnitsState, events: readonly ProposedEvent[]): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const wu of Object.values(state.wus)) if (wu.yaml_content_hash !== null) out.set(wu.wu_id, { ...wu.yaml_fields });
  for (const e of events) {
    const id = String(e.data['wu_id']);
    const fields = { ...(out.get(id) ?? {}), ...(e.data['fields'] as Record<string, unknown>) };
    for (const k of e.data['removed_fields'] as string[]) delete fields[k];
    out.set(id, fields);
  }
  return out;
}

/** The WUs an initiative file lists (`wus:`) that have no YAML in the WU folder. */
function listedWithoutYaml(
  files: LumenflowSources['initiatives'],
  state: WorkUnitsState,
  yamlFields: ReadonlyMap<string, Record<string, unknown>>,
): ImportFinding[] {
  const findings: ImportFinding[] = [];
  for (const file of files) {
    if ('unreadable' in file) continue;
    const parsed = file.parsed !== null && 'fields' in file.parsed ? file.parsed.fields : null;
    const listed = parsed !== null ? parsed['wus'] : state.initiatives[file.named]?.fields?.wus;
    if (!Array.isArray(listed)) continue;
    for (const id of listed)
      if (typeof id === 'string' && !yamlFields.has(id))
        findings.push(
          finding('warning', 'LISTED_WU_WITHOUT_YAML', `${file.display}: wus lists ${id}, which has no YAML in the WU folder`, {
            path: file.display,
            wu_id: id,
          }),
        );
  }
  return findings;
}

/** Initiatives the WUs name but no file (and no earlier event) defines. */
function undefinedInitiatives(state: WorkUnitsState, defined: Iterable<string>, yamlFields: ReadonlyMap<string, Record<string, unknown>>): ImportFinding[] {
  const known = new Set<string>([...Object.keys(state.initiatives), ...Object.keys(state.slugs), ...defined]);
  const orphans = new Map<string, string[]>();
  for (const [wuId, fields] of yamlFields) {
    const ref = fields['initiative'];
    if (typeof ref === 'string' && !known.has(ref)) orphans.set(ref, [...(orphans.get(ref) ?? []), wuId]);
  }
  return [...orphans]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([ref, wus]) =>
      finding(
        'warning',
        'INITIATIVE_NOT_DEFINED',
        `${ref} is named by ${wus.length} WU(s) (${wus.slice(0, 5).join(', ')}${wus.length > 5 ? ', …' : ''}) but no initiative file defines it`,
      ),
    );
}

/** Stamps against YAML status (LumenFlow's consistency check), over the files as they are now. */
function stampFindings(
  stamps: StampsPlan,
  stampsDisplay: string,
  state: WorkUnitsState,
  yamlFields: ReadonlyMap<string, Record<string, unknown>>,
): ImportFinding[] {
  const findings: ImportFinding[] = [];
  const stamped = new Set(stamps.files.map((s) => s.wu_id));
  for (const file of stamps.files) {
    if (!file.recognised)
      findings.push(
        finding(
          'info',
          'STAMP_TEXT_UNRECOGNISED',
          `${file.path}: its text is not "WU ${file.wu_id} — <title>" / "Completed: <date>"; it still counts as done evidence`,
          { path: file.path, wu_id: file.wu_id },
        ),
      );
    if (!yamlFields.has(file.wu_id))
      findings.push(
        finding('warning', 'STAMP_WITHOUT_YAML', `${file.path}: ${file.wu_id} has no YAML in the WU folder; the stamp still counts as done evidence`, {
          path: file.path,
          wu_id: file.wu_id,
        }),
      );
    const status = yamlFields.get(file.wu_id)?.['status'];
    if (typeof status === 'string' && !isTerminalYamlStatus(status)) {
      findings.push(
        finding('integrity', 'STAMP_YAML_MISMATCH', `${file.wu_id}: stamp ${file.path} says done, its YAML says ${status}`, {
          path: file.path,
          wu_id: file.wu_id,
        }),
      );
    }
  }
  for (const [wuId, fields] of [...yamlFields].sort(([a], [b]) => a.localeCompare(b))) {
    if (fields['status'] === 'done' && !stamped.has(wuId) && (state.wus[wuId]?.stamped ?? null) === null) {
      findings.push(finding('integrity', 'STAMP_MISSING', `${wuId}: its YAML says done but ${stampsDisplay}/${wuId}.done does not exist`, { wu_id: wuId }));
    }
  }
  return findings;
}

function rowSummary<T extends { result: string }>(rows: readonly T[]): { defined: number; changed: number; unchanged: number; changes: T[] } {
  const count = (r: string): number => rows.filter((x) => x.result === r).length;
  return { defined: count('defined'), changed: count('changed'), unchanged: count('unchanged'), changes: rows.filter((r) => r.result !== 'unchanged') };
}

/**
 * Decide the import: every source compared with the fold; history first, then the files' current
 * state (a WU claimed, checkpointed and completed in wu-events.jsonl and `done` in its YAML passes
 * through every state in order). A dry run decides the same and appends nothing.
 */
export function decideLumenflowImport(command: ImportLumenflow, state: LumenflowImportState): Decision<LumenflowImportOutcome> {
  const { sources } = command;
  const { fold } = state;
  const failures = [...sources.failures];
  const findings: ImportFinding[] = [];
  const settings = settingsEvent(sources, fold);
  const initiatives = planInitiatives(sources.initiatives, fold);
  failures.push(...initiatives.failures);
  const history = planWuEvents(sources.history, fold);
  for (const m of history.malformed)
    findings.push(
      finding('warning', 'MALFORMED_LINE', `${history.path ?? 'wu-events.jsonl'} line ${m.line}: ${m.message}; skipped`, { path: history.path, line: m.line }),
    );
  const yaml = planWuYaml(sources.wus, fold);
  failures.push(...yaml.failures);
  // In the WU folder every YAML file is a WU: an id that is not WU-<n> is an error, not a skip.
  for (const row of yaml.rows) if (row.result === 'skipped') failures.push(`${row.path}: id: must match ^WU-[0-9]{1,9}$`);
  const stamps = planStamps(sources.stamps, sources.directories.stamps_dir, fold);

  if (failures.length > 0 && !command.skipInvalid) {
    throw new Refusal(ErrorCode.INVALID_INPUT, `import lumenflow failed; nothing was imported:\n${failures.join('\n')}`, { failures });
  }
  for (const f of failures) findings.push(finding('error', 'INVALID_FILE', `${f} (skipped)`, { path: f.split(': ')[0] ?? null }));

  const events: ProposedEvent[] = [...(settings !== null ? [settings] : []), ...initiatives.events, ...history.events, ...yaml.events, ...stamps.events];
  const yamlFields = yamlAfter(fold, yaml.events);
  findings.push(...stampFindings(stamps, sources.directories.stamps_dir, fold, yamlFields));
  findings.push(...undefinedInitiatives(fold, initiatives.defined, yamlFields));
  findings.push(...listedWithoutYaml(sources.initiatives, fold, yamlFields));

  const outcome: LumenflowImportOutcome = {
    repo: sources.repo,
    dry_run: command.dryRun,
    directories: sources.directories,
    settings: { lanes: sources.settings.lanes.length, max_active_workers: sources.settings.max_active_workers, recorded: settings !== null },
    initiatives: rowSummary(initiatives.rows),
    wus: rowSummary(yaml.rows.filter((r) => r.result !== 'skipped')),
    wu_events: { lines: history.lines, imported: history.events.length, already_imported: history.already_imported, malformed: history.malformed.length },
    stamps: { files: stamps.files.length, recorded: stamps.events.length },
    skipped_invalid: new Set(failures.map((f) => f.split(': ')[0])).size,
    findings,
  };
  if (command.dryRun || events.length === 0) return { events: [], expected: {}, outcome };
  return { events, expected: {}, idempotencyKey: `lumenflow-import-${command.digest(`${state.seq}\n${JSON.stringify(events)}`)}`, outcome };
}
