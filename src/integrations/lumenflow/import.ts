import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalValue } from '../../../events/canonical.js';
import { isTerminalYamlStatus } from '../../../events/work-units/terms.js';
import type { StoredEvent } from '../../../events/envelope.js';
import { serializeState } from '../../../projections/projection.js';
import { workUnitsStateProjection } from '../../../projections/work-units/fold.js';
import { applyWorkUnits, type WorkUnitsState } from '../../../projections/work-units/state.js';
import { DEFAULT_SNAPSHOT_EVERY } from '../../store/projection-runner.js';
import { writeSnapshot } from '../../store/snapshots.js';
import { BatonError, ErrorCode } from '../../errors.js';
import { INPUT_LIMITS, readInputFile } from '../../input/bounded-input.js';
import { loadWorkUnits, requireLiveActingSession, type WorkUnitsEnv } from '../../work-units/env.js';
import type { ProposedEvent } from '../../../deciders/decision.js';
import { planImport, type ImportFileRow } from '../../work-units/import.js';
import { planInitiatives, type InitiativePlan, type InitiativeRow } from './initiatives.js';
import { displayOf, readLumenflowRepository, type LumenflowRepository } from './repository.js';
import { planStamps, type StampsPlan } from './stamps.js';
import { planWuEvents, type WuEventsPlan } from './wu-events.js';

/**
 * `baton import lumenflow [REPO]`: a whole LumenFlow repository in one batch — lane
 * settings, initiative YAML, the WU history of `wu-events.jsonl`, WU YAML, stamps — each compared
 * with what the log last recorded, so a second run appends nothing and a later one only what
 * changed. Invalid files fail the whole import (nothing appended) unless `--skip-invalid`.
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

export interface LumenflowImportResult {
  repo: string;
  dry_run: boolean;
  directories: { wu_dir: string; initiatives_dir: string; stamps_dir: string; state_dir: string };
  settings: { lanes: number; max_active_workers: number | null; recorded: boolean };
  initiatives: { defined: number; changed: number; unchanged: number; changes: InitiativeRow[] };
  wus: { defined: number; changed: number; unchanged: number; changes: ImportFileRow[] };
  wu_events: { lines: number; imported: number; already_imported: number; malformed: number };
  stamps: { files: number; recorded: number };
  skipped_invalid: number;
  findings: ImportFinding[];
  appended: number;
}

export interface LumenflowImportOptions {
  repo: string;
  cwd: string;
  dryRun: boolean;
  skipInvalid: boolean;
}

function finding(severity: FindingSeverity, code: string, message: string, extra: Partial<Pick<ImportFinding, 'path' | 'line' | 'wu_id'>> = {}): ImportFinding {
  return { severity, code, path: extra.path ?? null, line: extra.line ?? null, wu_id: extra.wu_id ?? null, message };
}

function settingsEvent(repo: LumenflowRepository, display: (abs: string) => string, state: WorkUnitsState): ProposedEvent | null {
  const lanes: Record<string, Record<string, unknown>> = {};
  for (const lane of repo.lanes) {
    lanes[lane.name] = {
      ...(lane.lock_policy !== undefined ? { lock_policy: lane.lock_policy } : {}),
      ...(lane.wip_limit !== undefined ? { wip_limit: lane.wip_limit } : {}),
      ...(lane.code_paths !== undefined ? { code_paths: lane.code_paths } : {}),
    };
  }
  const data = {
    source: 'lumenflow',
    path: display(repo.workspace_yaml ?? repo.root),
    lanes,
    max_active_workers: repo.max_active_workers,
    stamps_dir: display(repo.dirs.stampsDir),
  };
  const last = state.recorded_settings;
  if (last === undefined && repo.workspace_yaml === null) return null;
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

/**
 * The WU folder through `wu import`'s planner, except the files whose bytes are exactly what the
 * log last recorded for the WU their name says (same SHA-256): those are unchanged without being
 * parsed, which is most of a re-run.
 */
function planWuYaml(workspace: string, state: WorkUnitsState, folder: string): { rows: ImportFileRow[]; events: ProposedEvent[]; failures: string[] } {
  if (!existsSync(folder)) return { rows: [], events: [], failures: [] };
  const unchanged: ImportFileRow[] = [];
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
          unchanged.push({ path: displayOf(workspace, abs), wu_id: name.replace(/\.ya?ml$/, ''), result: 'unchanged', changed_fields: [] });
          continue;
        }
      } catch {
        // unreadable: the planner reports it
      }
    }
    toParse.push(abs);
  }
  const plan = toParse.length > 0 ? planImport(workspace, state, toParse, true) : { rows: [], events: [], failures: [] };
  const failures = [...plan.failures];
  const known = new Map(unchanged.map((r) => [r.wu_id, r.path]));
  for (const row of plan.rows) {
    const other = row.wu_id !== null ? known.get(row.wu_id) : undefined;
    if (other !== undefined) failures.push(`${row.path}: id: ${row.wu_id} is also defined by ${other}`);
  }
  const rows = [...unchanged, ...plan.rows].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { rows, events: failures.length > plan.failures.length ? plan.events.filter((e) => !known.has(String(e.data['wu_id']))) : plan.events, failures };
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
    state: serializeState(workUnitsStateProjection, state),
  });
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

/** Appends the planned events (unless there are none) and returns how many were newly appended. */
async function appendPlanned(env: WorkUnitsEnv, state: WorkUnitsState, seq: number, events: readonly ProposedEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  // A direct append of what the files say, one batch (all-or-nothing); its key binds the plan to the log
  // position it was made from, so a concurrent identical import is deduplicated, never appended twice.
  requireLiveActingSession(env, state, events);
  const digest = createHash('sha256')
    .update(`${seq}\n${JSON.stringify(events)}`)
    .digest('hex');
  const result = await env.store.append(
    events.map((e) => ({ ...e, actor: env.actor, at: env.now })),
    { idempotencyKey: `lumenflow-import-${digest}` },
  );
  const appended = result.deduplicated ? 0 : result.events.length;
  if (appended > 0) snapshotAfter(env, state, seq, result.events);
  return appended;
}

function countRows<T extends { result: string }>(rows: readonly T[], r: string): number {
  return rows.filter((x) => x.result === r).length;
}

function rowSummary<T extends { result: string }>(rows: readonly T[]): { defined: number; changed: number; unchanged: number; changes: T[] } {
  return {
    defined: countRows(rows, 'defined'),
    changed: countRows(rows, 'changed'),
    unchanged: countRows(rows, 'unchanged'),
    changes: rows.filter((r) => r.result !== 'unchanged'),
  };
}

interface ImportPlan {
  repo: LumenflowRepository;
  settings: ProposedEvent | null;
  initiatives: InitiativePlan;
  history: WuEventsPlan;
  yaml: { rows: ImportFileRow[]; events: ProposedEvent[]; failures: string[] };
  wuRows: ImportFileRow[];
  stamps: StampsPlan;
  stampsDisplay: string;
  failures: string[];
  findings: ImportFinding[];
}

/** Reads every source of the repository and plans its events; collects failures and parse findings. */
function planRepository(env: WorkUnitsEnv, options: LumenflowImportOptions, state: WorkUnitsState, display: (abs: string) => string): ImportPlan {
  const repo = readLumenflowRepository(options.repo, options.cwd);
  const failures = [...repo.failures];
  const findings: ImportFinding[] = [];

  const settings = settingsEvent(repo, display, state);
  const initiatives = planInitiatives(env.workspace, state, repo.dirs.initiativesDir);
  failures.push(...initiatives.failures);
  const history = planWuEvents(repo.dirs.stateDir, state, display);
  for (const m of history.malformed)
    findings.push(
      finding('warning', 'MALFORMED_LINE', `${history.path ?? 'wu-events.jsonl'} line ${m.line}: ${m.message}; skipped`, { path: history.path, line: m.line }),
    );

  const yaml = planWuYaml(env.workspace, state, repo.dirs.wuDir);
  failures.push(...yaml.failures);
  // In the WU folder every YAML file is a WU: an id that is not WU-<n> is an error, not a skip.
  for (const row of yaml.rows) if (row.result === 'skipped') failures.push(`${row.path}: id: must match ^WU-[0-9]{1,9}$`);
  const wuRows = yaml.rows.filter((r) => r.result !== 'skipped');

  const stampsDisplay = display(repo.dirs.stampsDir);
  const stamps = planStamps(repo.dirs.stampsDir, stampsDisplay, state, display);
  return { repo, settings, initiatives, history, yaml, wuRows, stamps, stampsDisplay, failures, findings };
}

export async function importLumenflow(env: WorkUnitsEnv, options: LumenflowImportOptions): Promise<LumenflowImportResult> {
  const display = (abs: string): string => displayOf(env.workspace, abs);
  const { state, seq } = await loadWorkUnits(env);
  const plan = planRepository(env, options, state, display);
  const { repo, settings, initiatives, history, yaml, stamps, stampsDisplay, failures, findings } = plan;

  if (failures.length > 0 && !options.skipInvalid) {
    throw new BatonError(ErrorCode.INVALID_INPUT, `import lumenflow failed; nothing was imported:\n${failures.join('\n')}`, { failures });
  }
  for (const f of failures) findings.push(finding('error', 'INVALID_FILE', `${f} (skipped)`, { path: f.split(': ')[0] ?? null }));

  // History first, then the files' current state: a WU claimed, checkpointed and completed in
  // wu-events.jsonl and `done` in its YAML passes through every state in order.
  const events: ProposedEvent[] = [...(settings !== null ? [settings] : []), ...initiatives.events, ...history.events, ...yaml.events, ...stamps.events];

  const yamlFields = yamlAfter(state, yaml.events);
  findings.push(...stampFindings(stamps, stampsDisplay, state, yamlFields));
  findings.push(...undefinedInitiatives(state, initiatives.defined, yamlFields));

  const appended = options.dryRun ? 0 : await appendPlanned(env, state, seq, events);
  return {
    repo: repo.root,
    dry_run: options.dryRun,
    directories: {
      wu_dir: display(repo.dirs.wuDir),
      initiatives_dir: display(repo.dirs.initiativesDir),
      stamps_dir: stampsDisplay,
      state_dir: display(repo.dirs.stateDir),
    },
    settings: { lanes: repo.lanes.length, max_active_workers: repo.max_active_workers, recorded: settings !== null },
    initiatives: rowSummary(initiatives.rows),
    wus: rowSummary(plan.wuRows),
    wu_events: { lines: history.lines, imported: history.events.length, already_imported: history.already_imported, malformed: history.malformed.length },
    stamps: { files: stamps.files.length, recorded: stamps.events.length },
    skipped_invalid: new Set(failures.map((f) => f.split(': ')[0])).size,
    findings,
    appended,
  };
}
