import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CLIENT_TYPES } from '../../events/coordination/identities.js';
import type { ClaimedMode } from '../../events/work-units/vocabulary.js';
import type { LaunchDocument, PlanDocument, StatusDocument } from '../../projections/work-units/documents.js';
import type { BatonEvent } from '../../events/baton-event.js';
import { decideLaunch, handoffInput, renderHandoff, type LaunchInitiative, type LaunchState } from '../../deciders/initiatives.js';
import { statusDocument } from '../../projections/work-units/initiative-view.js';
import { applyWorkUnits, type AttemptRecord, type WorkUnitsState } from '../../projections/work-units/state.js';
import { FileAccess, readIfFile, writeFileAtomic, writeIfChanged } from '../artifacts/atomic-write.js';
import { assertNoLinkBelow } from '../artifacts/owned-paths.js';
import { invalidField } from '../errors.js';
import { loadWorkUnits, runWorkUnitsCommand, type WorkUnitsEnv } from './env.js';
import { loadObserved } from './observe.js';
import { checkInitiativeId, nextAttempt, parseMaxActiveWorkers, reconcile, requireInitiative } from './orchestrate.js';
import { BATON_DIR_NAME } from '../store/jsonl/layout.js';

/**
 * The attempt bundle (work-units.md §10): `orchestrate run` claims the next attempt number with the
 * initiative stream's expected version (two runs cannot take the same one), appends the attempt and
 * its handoffs in one batch, then writes the files. Every file is a projection of the log:
 * `refreshLatestAttempt` rewrites status.json and restores anything missing or altered.
 */
export function documentText(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function attemptRel(initiative: string, attempt: number): string {
  return `${BATON_DIR_NAME}/artifacts/orchestration/${initiative}/attempt-${attempt}`;
}

export interface RunResult {
  initiative: string;
  launch_attempt: number | null;
  attempt_path: string | null;
  handoffs: { wu_id: string; handoff_artifact_path: string; handoff_format: 'markdown' | 'xml'; relaunch: boolean; content: string }[];
  status: StatusDocument;
}

/** The state `orchestrate run` decides on: the stream version read before the fold (a run landing in between conflicts), the observed fold, its computation, the next attempt. */
function readLaunch(env: WorkUnitsEnv, initiative: string, max: number | undefined): () => Promise<LaunchState> {
  return async () => {
    const version = await env.store.streamVersion(`initiative/${initiative}`);
    const { state } = await loadObserved(env, { append: true });
    requireInitiative(state, initiative);
    const computation = reconcile(state, initiative, env, { maxActiveWorkers: max });
    const attempt = nextAttempt(state, env.workspace, initiative);
    // The attempt's folder must be one of Baton's own before anything is recorded (owned-paths.ts).
    if (!computation.blocked_by_integrity && computation.launches.length > 0)
      assertNoLinkBelow(env.workspace, join(env.workspace, attemptRel(initiative, attempt), 'handoffs'));
    return { version, fold: state, computation, attempt };
  };
}

export async function runInitiative(
  env: WorkUnitsEnv,
  initiative: string,
  options: { client?: string | undefined; max_active_workers?: string | undefined },
): Promise<RunResult> {
  checkInitiativeId(initiative);
  const max = parseMaxActiveWorkers(options.max_active_workers);
  const client = options.client ?? env.config.orchestration.default_client;
  if (!(CLIENT_TYPES as readonly string[]).includes(client)) throw invalidField(`must be one of ${CLIENT_TYPES.join(', ')}`, 'client');
  const command: LaunchInitiative = {
    initiative,
    client,
    now: env.now,
    orchestration: env.config.orchestration,
    attemptDir: (n) => attemptRel(initiative, n),
    digest: sha256,
  };
  const evolve = (s: LaunchState, event: BatonEvent): LaunchState => {
    applyWorkUnits(s.fold, event);
    return s;
  };
  const handled = await runWorkUnitsCommand(env, readLaunch(env, initiative, max), (s) => decideLaunch(command, s), evolve);
  const state = handled.state.fold;
  const launched = handled.decision!.outcome;
  if (launched.attempt === null) {
    return { initiative, launch_attempt: null, attempt_path: null, handoffs: [], status: statusDocument(handled.state.computation, env.now) };
  }
  const { attempt, rel, format, handoffs } = launched;
  const status = statusDocument(reconcile(state, initiative, env, { maxActiveWorkers: max, useRecordedCapacity: true }), env.now);
  const dir = join(env.workspace, rel);
  for (const h of handoffs) writePrivate(env.workspace, join(env.workspace, h.path), h.content);
  const record = state.attempts[initiative]!.find((a) => a.launch_attempt === attempt)!;
  writePrivate(env.workspace, join(dir, 'plan.json'), documentText(planFromRecord(initiative, record)));
  writePrivate(env.workspace, join(dir, 'launch.json'), documentText(launchFromRecord(initiative, record)));
  writePrivate(env.workspace, join(dir, 'status.json'), documentText(status));
  return {
    initiative,
    launch_attempt: attempt,
    attempt_path: rel,
    handoffs: handoffs.map((h) => ({ wu_id: h.wu_id, handoff_artifact_path: h.path, handoff_format: format, relaunch: h.relaunch, content: h.content })),
    status,
  };
}

/** plan.json as the run recorded it in `orchestration.attempt_started`. */
export function planFromRecord(initiative: string, a: AttemptRecord): PlanDocument {
  return {
    initiative,
    launch_attempt: a.launch_attempt,
    generated_at: a.at,
    max_active_workers: a.max_active_workers,
    logical_waves: a.logical_waves,
    waves: (a.waves as PlanDocument['waves']).map(planWave),
    deferred: (a.deferred as PlanDocument['deferred']).map((d) => ({ wu_id: d.wu_id, reason: d.reason })),
  };
}

/**
 * A wave with its keys in the order of work-units.md §9. The log stores event data in canonical
 * form (keys sorted), so a plan rebuilt from the log must put them back in the document's order to
 * equal, byte for byte, the plan first written.
 */
function planWave(w: PlanDocument['waves'][number]): PlanDocument['waves'][number] {
  return {
    planned_wave: w.planned_wave,
    logical_wave: w.logical_wave,
    logical_waves: w.logical_waves,
    wus: w.wus.map((u) => ({ id: u.id, lane: u.lane, logical_wave: u.logical_wave })),
  };
}

/** launch.json from the attempt's `handoff.emitted` facts, in (logical wave, numeric id) order. */
export function launchFromRecord(initiative: string, a: AttemptRecord): LaunchDocument {
  const rows = [...a.handoffs].sort(
    (x, y) => x.logical_wave - y.logical_wave || Number(x.wu_id.slice(3)) - Number(y.wu_id.slice(3)) || (x.wu_id < y.wu_id ? -1 : 1),
  );
  return {
    initiative,
    launch_attempt: a.launch_attempt,
    generated_at: a.at,
    client: a.client,
    logical_waves: [...new Set(rows.map((r) => r.logical_wave))].sort((x, y) => x - y),
    handoffs: rows.map((r) => ({
      wu_id: r.wu_id,
      lane: r.lane,
      logical_wave: r.logical_wave,
      launch_attempt: r.launch_attempt,
      handoff_artifact_path: r.handoff_artifact_path,
      handoff_format: r.handoff_format as 'markdown' | 'xml',
      orchestration_state: 'handoff_emitted',
      emitted_at: r.at,
      relaunch: r.relaunch,
      content_sha256: r.content_sha256,
    })),
  };
}

/**
 * `orchestrate status` on the latest attempt: status.json rewritten, plan.json and launch.json
 * restored from the log, a missing or altered handoff rebuilt from the fold before its batch and
 * written only when it matches its recorded `content_sha256`. Older attempts are frozen.
 */
export async function refreshLatestAttempt(env: WorkUnitsEnv, initiative: string, status: StatusDocument, state?: WorkUnitsState): Promise<void> {
  const folded = state ?? (await loadWorkUnits(env)).state;
  const attempts = folded.attempts[initiative] ?? [];
  if (attempts.length === 0) return;
  const latest = attempts.reduce((a, b) => (b.launch_attempt > a.launch_attempt ? b : a));
  const dir = join(env.workspace, attemptRel(initiative, latest.launch_attempt));
  restorePrivate(env.workspace, join(dir, 'status.json'), documentText(status));
  restorePrivate(env.workspace, join(dir, 'plan.json'), documentText(planFromRecord(initiative, latest)));
  restorePrivate(env.workspace, join(dir, 'launch.json'), documentText(launchFromRecord(initiative, latest)));
  const broken = latest.handoffs.filter((h) => {
    const bytes = readIfFile(env.workspace, join(env.workspace, h.handoff_artifact_path));
    return bytes === undefined || createHash('sha256').update(bytes).digest('hex') !== h.content_sha256;
  });
  if (broken.length === 0) return;
  // Rebuild from the log as it was just before the attempt's batch.
  const before = (await loadWorkUnits(env, latest.seq - 1)).state;
  const maxRecorded = latest.max_active_workers_source === 'cli' ? latest.max_active_workers : undefined;
  const c = reconcile(before, initiative, { ...env, now: latest.at }, { maxActiveWorkers: maxRecorded ?? undefined });
  for (const h of broken) {
    const content = renderHandoff(
      handoffInput(
        before,
        c,
        { ...h, claimed_mode: h.claimed_mode as ClaimedMode, worktree_path: h.worktree_path },
        latest.client,
        latest.stall_threshold,
        env.config.orchestration.claude_subagent_type,
      ),
      h.handoff_format,
    );
    if (sha256(content) === h.content_sha256) writePrivate(env.workspace, join(env.workspace, h.handoff_artifact_path), content);
  }
}

function writePrivate(workspace: string, path: string, content: string): void {
  writeFileAtomic(workspace, path, content, FileAccess.private);
}

function restorePrivate(workspace: string, path: string, content: string): boolean {
  return writeIfChanged(workspace, path, content, FileAccess.private);
}
