import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CLIENT_TYPES } from '../../events/coordination/identities.js';
import type { ClaimedMode } from '../../events/work-units/vocabulary.js';
import type { LaunchDocument, PlanDocument, StatusDocument } from '../../projections/work-units/documents.js';
import { depsOf } from '../../projections/work-units/evidence.js';
import { handoffFormatFor, renderHandoffMarkdown, renderHandoffXml, type HandoffInput } from '../../projections/work-units/handoff.js';
import { planDocument, statusDocument, type InitiativeComputation } from '../../projections/work-units/initiative-view.js';
import { applyWorkUnits, type AttemptRecord, type WorkUnitsState } from '../../projections/work-units/state.js';
import { FileAccess, readIfFile, writeFileAtomic, writeIfChanged } from '../artifacts/atomic-write.js';
import { assertNoLinkBelow } from '../artifacts/owned-paths.js';
import { BatonError, ErrorCode, invalidInput } from '../errors.js';
import { loadWorkUnits, type WorkUnitsEnv } from './env.js';
import { defaultBranch, defaultWorktree } from './lifecycle.js';
import { loadObserved } from './observe.js';
import { artifactsRoot, checkInitiativeId, nextAttempt, parseMaxActiveWorkers, reconcile, requireInitiative } from './orchestrate.js';
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

/** What a handoff says, from the fold before the batch (so a rebuild reads the same inputs). */
function handoffInput(
  state: WorkUnitsState,
  c: InitiativeComputation,
  h: { wu_id: string; lane: string; logical_wave: number; launch_attempt: number; relaunch: boolean; claimed_mode: ClaimedMode; worktree_path: string | null; branch: string },
  client: string,
  stallThreshold: string,
  subagentType: string,
): HandoffInput {
  const wu = state.wus[h.wu_id]!;
  return {
    ...h,
    def: wu.def,
    initiative: c.initiative,
    client,
    dependencies: depsOf(wu).map((d) => ({ wu_id: d, state: c.assessments.get(d)?.decision.state ?? 'unknown' })),
    stall_threshold: stallThreshold,
    subagent_type: subagentType,
  };
}

function render(input: HandoffInput, format: string): string {
  return format === 'xml' ? renderHandoffXml(input) : renderHandoffMarkdown(input);
}

export async function runInitiative(env: WorkUnitsEnv, initiative: string, options: { client?: string | undefined; maxActiveWorkers?: string | undefined }): Promise<RunResult> {
  checkInitiativeId(initiative);
  const max = parseMaxActiveWorkers(options.maxActiveWorkers);
  const client = options.client ?? env.config.orchestration.default_client;
  if (!(CLIENT_TYPES as readonly string[]).includes(client)) throw invalidInput(`must be one of ${CLIENT_TYPES.join(', ')}`, '--client');
  const stream = `initiative/${initiative}`;
  // Read before the fold: a concurrent run appending in between makes ours conflict (exit 4).
  const version = await env.store.streamVersion(stream);
  const { state } = await loadObserved(env, { append: true });
  requireInitiative(state, initiative);
  const c = reconcile(state, initiative, env, { maxActiveWorkers: max });
  if (c.blocked_by_integrity) {
    const contaminated = c.members.filter((id) => c.assessments.get(id)!.decision.state === 'contaminated');
    throw new BatonError(ErrorCode.INTEGRITY_BLOCKED, `launch refused until integrity is restored: contaminated ${contaminated.join(', ')} (recover first)`, { contaminated });
  }
  if (c.launches.length === 0) {
    return { initiative, launch_attempt: null, attempt_path: null, handoffs: [], status: statusDocument(c, env.now) };
  }
  const attempt = nextAttempt(state, env.workspace, initiative);
  const format = handoffFormatFor(client);
  const ext = format === 'xml' ? 'xml' : 'md';
  const rel = attemptRel(initiative, attempt);
  const stallThreshold = env.config.orchestration.stall_threshold;
  const plan = planDocument(c, attempt, env.now);
  const handoffs = c.launches.map((action) => {
    const wu = state.wus[action.wu_id]!;
    const mode = (wu.def.claimed_mode ?? env.config.orchestration.default_claim_mode) as ClaimedMode;
    const lane = wu.def.lane ?? 'default';
    const worktree = mode === 'worktree' || mode === 'worktree-pr' ? defaultWorktree(env.config.orchestration.worktrees_dir, lane, wu.wu_id) : null;
    const fields = {
      wu_id: wu.wu_id,
      lane,
      logical_wave: action.logical_wave,
      launch_attempt: attempt,
      relaunch: action.type === 'relaunch_wu',
      claimed_mode: mode,
      worktree_path: worktree,
      branch: defaultBranch(lane, wu.wu_id),
    };
    const content = render(handoffInput(state, c, fields, client, stallThreshold, env.config.orchestration.claude_subagent_type), format);
    return { ...fields, content, path: `${rel}/handoffs/${wu.wu_id}.${ext}`, sha: sha256(content) };
  });
  const events = [
    {
      type: 'orchestration.attempt_started',
      stream,
      data: {
        initiative,
        launch_attempt: attempt,
        client,
        handoff_format: format,
        max_active_workers: c.max_active_workers,
        max_active_workers_source: c.max_active_workers_source,
        stall_threshold: stallThreshold,
        logical_waves: plan.logical_waves,
        waves: plan.waves,
        deferred: plan.deferred,
      },
    },
    ...handoffs.map((h) => ({
      type: 'handoff.emitted',
      stream,
      data: {
        initiative,
        wu_id: h.wu_id,
        launch_attempt: attempt,
        lane: h.lane,
        logical_wave: h.logical_wave,
        handoff_format: format,
        handoff_artifact_path: h.path,
        content_sha256: h.sha,
        claimed_mode: h.claimed_mode,
        worktree_path: h.worktree_path,
        branch: h.branch,
        relaunch: h.relaunch,
      },
    })),
  ];
  // The attempt's folder must be one of Baton's own before anything is recorded (owned-paths.ts).
  assertNoLinkBelow(env.workspace, join(env.workspace, rel, 'handoffs'));
  const result = await env.store.append(
    events.map((e) => ({ ...e, actor: env.actor, at: env.now })),
    { expectedVersion: { [stream]: version === 0 ? 'no_stream' : version } },
  );
  for (const stored of result.events) applyWorkUnits(state, env.catalog.upcast(stored));
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
  const rows = [...a.handoffs].sort((x, y) => x.logical_wave - y.logical_wave || Number(x.wu_id.slice(3)) - Number(y.wu_id.slice(3)) || (x.wu_id < y.wu_id ? -1 : 1));
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
    const content = render(
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
