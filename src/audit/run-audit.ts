import { auditFindings } from '../../projections/audit/findings.js';
import { auditLogProjection } from '../../projections/audit/log-fold.js';
import type { DiskFacts, Finding, RepositoryFacts } from '../../projections/audit/types.js';
import { flowProjection } from '../../projections/flow/index.js';
import { tasksStateProjection } from '../../projections/tasks/projections.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import type { AppContext } from '../app/context.js';
import { positionAtTime } from '../app/replay-view.js';
import { workUnitsEnv } from '../app/work-units-env.js';
import { runProjections } from '../store/projection-runner.js';
import type { EventStore } from '../store/contract.js';
import { prepareObservation } from '../work-units/observe.js';
import { readConfigText } from '../workspace.js';
import { gatherDiskFacts } from './disk-facts.js';
import { gatherRepositoryFacts } from './git-facts.js';
import { auditSettingsFrom, type AuditSettings } from './settings.js';

/**
 * One audit: fold the log to the position audited (the head, or a past one as `replay --to` and
 * `--at` take it), gather what git and the files show now, and compute the findings (the pure
 * projections/audit/). Reads only; `--fix` is fix-audit.ts. The time of each part is kept: the
 * bench prints the split, and so does the envelope.
 */
export type AuditPosition = { seq: number } | { time: string };

export interface AuditResult {
  findings: Finding[];
  /** The position audited: its last seq and the clock the findings were judged at. */
  as_of: { seq: number; at: string };
  head_seq: number;
  repository: RepositoryFacts | null;
  disk: DiskFacts;
  fold: WorkUnitsState;
  settings: AuditSettings;
  timings_ms: { replay: number; git: number; disk: number; findings: number };
}

/** The seq to fold to and the clock of that position (the time of its last event), as `replay` takes them. */
async function positionOf(store: EventStore, now: string, at: AuditPosition | undefined): Promise<{ to: number | undefined; asOf: string }> {
  if (at === undefined) return { to: undefined, asOf: now };
  if ('seq' in at) {
    let asOf = now;
    for await (const event of store.read({ from: at.seq, to: at.seq })) asOf = event.at;
    return { to: at.seq, asOf };
  }
  return { to: await positionAtTime(store.read({}), Date.parse(at.time)), asOf: at.time };
}

export async function runAudit(app: AppContext, at?: AuditPosition): Promise<AuditResult> {
  const env = await workUnitsEnv(app);
  const settings = auditSettingsFrom(readConfigText(env.workspace));
  const { to, asOf } = await positionOf(env.store, app.now, at);
  // The YAML probe lists and parses its files before the fold, as the status commands do.
  const compareYaml = await prepareObservation({ ...env, config: { ...env.config, probes: { ...env.config.probes, enabled: true } } });
  let t = performance.now();
  const [tasks, workUnits, flows, log] = await runProjections(
    env.store,
    [tasksStateProjection, workUnitsStateProjection, flowProjection, auditLogProjection] as const,
    {
      catalog: env.catalog,
      now: asOf,
      ...(env.cacheDir !== undefined ? { cacheDir: env.cacheDir } : {}),
      ...(to !== undefined ? { to } : {}),
    },
  );
  const replay = performance.now() - t;
  t = performance.now();
  const repository = gatherRepositoryFacts(env.workspace, settings.integrationBranch);
  const git = performance.now() - t;
  t = performance.now();
  const disk = await gatherDiskFacts(app, {
    workspace: env.workspace,
    fold: workUnits.state,
    flows: flows.state,
    compareYaml,
    inGit: repository !== null,
    warn: env.warn,
  });
  const diskMs = performance.now() - t;
  t = performance.now();
  const findings = auditFindings({
    now: asOf,
    work_units: workUnits.state,
    coordination: tasks.state.coordination,
    tasks_findings: tasks.state.findings,
    flows: flows.state,
    log: log.state,
    repository,
    disk,
    windows: settings.windows,
  });
  const findingsMs = performance.now() - t;
  return {
    findings,
    as_of: { seq: workUnits.seq, at: asOf },
    head_seq: to === undefined ? workUnits.seq : (await env.store.head()).seq,
    repository,
    disk,
    fold: workUnits.state,
    settings,
    timings_ms: { replay: Math.round(replay), git: Math.round(git), disk: Math.round(diskMs), findings: Math.round(findingsMs) },
  };
}
