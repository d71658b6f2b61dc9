import type { ClaimActor } from '../../../deciders/claim-holder.js';
import { holderName } from '../../../projections/work-units/reservations.js';
import { livenessOf, mayAct } from '../../../projections/coordination/liveness.js';
import { ownValue } from '../../../projections/own-keys.js';
import type { WorkUnitsState } from '../../../projections/work-units/state.js';
import { BatonError, invalidField } from '../../errors.js';
import { runGit } from '../../probes/git.js';
import { storeExists } from '../../store/jsonl/layout.js';
import { liveReservations, loadReservationFold, relativeBase, repositoryPathOf, verdictFor, type PathVerdict } from '../../work-units/reservations.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { PathGuardEnvelope } from '../envelopes/guard.js';

/**
 * `baton guard PATH…` / `baton guard --staged` and the MCP `check_paths` tool: for each path, the
 * live claims that reserve it (projections/work-units/reservations.ts) and whether they are the
 * asker's. Reads the log; appends only when `BATON_GUARD=off` skips the staged check (the pre-commit
 * hook's), which is recorded as `guard.skipped`. Exit 4 on the CLI when a path is held by another.
 */
export interface GuardInput {
  /** Paths, absolute or relative to `cwd` when it lies in the workspace, else to the workspace. */
  paths?: readonly string[] | undefined;
  /** The paths git has staged in `cwd`'s checkout (`git diff --cached`), instead of `paths`. */
  staged?: boolean | undefined;
  /** Where relative paths (and `git`) start; the workspace when not given. */
  cwd?: string | undefined;
}

export type { PathGuardEnvelope };
const MAX_PATHS = 10_000;

/** Who asks: the acting session (or identity), and the agent identity of the environment too. */
export function actingCandidates(app: AppContext): ClaimActor[] {
  const identity = app.env['BATON_AGENT_IDENTITY']?.trim();
  const acting: ClaimActor[] = [{ session: app.session ?? null, actor: app.actor }];
  if (identity !== undefined && identity !== '' && identity !== app.actor) acting.push({ session: null, actor: identity });
  return acting;
}

function checkPathsInput(input: GuardInput): void {
  const paths = input.paths ?? [];
  if (input.staged === true && paths.length > 0) throw invalidField('give paths or --staged, not both', 'paths');
  if (input.staged !== true && paths.length === 0) throw invalidField('at least one path is required (or --staged)', 'paths');
  if (paths.length > MAX_PATHS) throw invalidField(`at most ${MAX_PATHS} paths`, 'paths');
  // eslint-disable-next-line no-control-regex -- a control character is what it refuses
  const bad = paths.find((p) => p.length === 0 || p.length > 4096 || /[\u0000]/.test(p));
  if (bad !== undefined) throw invalidField(`each path must be 1–4,096 characters without NUL, got ${JSON.stringify(bad.slice(0, 80))}`, 'paths');
}

/** The paths git has staged in the checkout around `cwd`, repository-relative (a rename: both its paths). */
export function stagedPaths(cwd: string): string[] {
  const r = runGit(cwd, ['diff', '--cached', '--name-only', '-z', '--no-renames']);
  if (r === null || r.status !== 0) throw invalidField(`needs a git checkout with an index (git diff --cached failed in ${cwd})`, 'staged');
  return r.stdout.split('\0').filter((p) => p !== '');
}

export async function checkPaths(app: AppContext, input: GuardInput): Promise<PathGuardEnvelope> {
  checkPathsInput(input);
  const workspace = await app.workspace();
  await app.resolveSession();
  const cwd = relativeBase(workspace, input.cwd);
  const staged = input.staged === true ? stagedPaths(cwd) : undefined;
  const fold = await loadReservationFold(app);
  const live = liveReservations(fold, app.now);
  const acting = actingCandidates(app);
  const verdicts =
    staged !== undefined
      ? staged.map((p) => verdictFor(fold, live, p, p, acting))
      : (input.paths ?? []).map((p) => verdictFor(fold, live, p, repositoryPathOf(fold, workspace, cwd, p), acting));
  const held = verdicts.filter((v) => v.status === 'held');
  const skipped = staged !== undefined && app.env['BATON_GUARD'] === 'off';
  if (skipped) await recordSkip(app, fold, verdicts.length, held);
  return checked(PathGuardEnvelope, {
    v: 1,
    type: 'path_guard',
    generated_at: app.now,
    acting: { session: app.session ?? null, identity: identityOf(fold, acting) },
    ok: skipped || held.length === 0,
    skipped,
    paths: verdicts.map((v) => ({ ...v, reservations: v.reservations.map(({ holder, ...r }) => ({ ...r, holder: holderShape(holder) })) })),
    held: held.map((v) => v.path),
  });
}

const holderShape = (h: PathVerdict['reservations'][number]['holder']) => ({
  session: h.session,
  identity: h.identity,
  last_seen: h.last_seen,
  lease_until: h.lease_until,
});

function identityOf(fold: WorkUnitsState, acting: readonly ClaimActor[]): string | null {
  for (const who of acting) {
    if (who.session !== null) {
      const identity = ownValue(fold.sessions, who.session)?.agent_identity;
      if (identity !== undefined) return identity;
    } else if (who.actor !== 'system' && !who.actor.startsWith('session_')) return who.actor;
  }
  return null;
}

/**
 * `BATON_GUARD=off` on the staged check: the skip is a fact, with the reservations it overrode,
 * recorded as the acting session while it may act (else as the agent identity, or `system`). A
 * failure to record it is a warning, never a refused commit.
 */
async function recordSkip(app: AppContext, fold: WorkUnitsState, paths: number, held: readonly PathVerdict[]): Promise<void> {
  // No Baton workspace here: nothing reserved, nothing to record (and no `.baton/` created for it).
  if (!storeExists(await app.workspace(), app.env)) return;
  const overridden = held
    .flatMap((v) => v.reservations.filter((r) => !r.mine).map((r) => ({ path: v.repo_path ?? v.path, wu_id: r.wu_id, holder: holderName(r.holder) })))
    .slice(0, 1000);
  const session = app.session !== undefined && mayAct(livenessOf(ownValue(fold.sessions, app.session), app.now)) ? app.session : null;
  const identity = app.env['BATON_AGENT_IDENTITY']?.trim();
  const event = {
    type: 'guard.skipped',
    stream: 'workspace/guard',
    data: { check: 'staged', session_id: session, via: 'BATON_GUARD=off', paths, overridden },
    actor: session ?? (identity !== undefined && identity !== '' ? identity.slice(0, 200) : 'system'),
  };
  try {
    await (await app.store()).append([event]);
  } catch (error) {
    const message = error instanceof BatonError ? `${error.code}: ${error.message}` : String(error);
    app.output.warn(`BATON_GUARD=off: the guard was skipped, but the skip could not be recorded (${message})`);
  }
}
