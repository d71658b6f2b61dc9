import { readdirSync } from 'node:fs';
import { INITIATIVE_ID_PATTERN } from '../../events/work-units/terms.js';
import type { PlanDocument, StatusDocument } from '../../projections/work-units/documents.js';
import { computeInitiative, planDocument, statusDocument, type InitiativeComputation } from '../../projections/work-units/initiative-view.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { DependencyCycleError } from '../../projections/work-units/waves.js';
import { BatonError, ErrorCode, invalidField } from '../errors.js';
import type { WorkUnitsEnv } from './env.js';
import { WorkUnitErrorCode } from './errors.js';
import { loadObserved } from './observe.js';
import { orchestrationDir } from '../store/jsonl/layout.js';

/** `orchestrate plan | status` (work-units.md §7–§10): probes, fold, the reconciled initiative. */
export interface OrchestrateOptions {
  /** The capacity as given (text, as a flag gives it): an integer from 0 to 1000. */
  max_active_workers?: string | undefined;
}

/** An initiative id, named `initiative` (the CLI calls its argument `INIT`). */
export function checkInitiativeId(id: string): string {
  if (!INITIATIVE_ID_PATTERN.test(id)) throw invalidField(`must match ^INIT-[0-9A-Z][0-9A-Z-]*$, got ${JSON.stringify(id)}`, 'initiative');
  return id;
}

export function parseMaxActiveWorkers(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,4}$/.test(value) || Number(value) > 1000) throw invalidField('must be an integer from 0 to 1000', 'max_active_workers');
  return Number(value);
}

export function artifactsRoot(workspace: string, initiative: string): string {
  return orchestrationDir(workspace, initiative);
}

/** Attempt numbers already on disk (`attempt-<K>` folders, whoever made them). */
export function attemptFolders(workspace: string, initiative: string): number[] {
  try {
    return readdirSync(artifactsRoot(workspace, initiative))
      .map((name) => /^attempt-(\d{1,9})$/.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]));
  } catch {
    return [];
  }
}

/** The next attempt: 1 + max(recorded attempts, folders), or 0 (§10.1). */
export function nextAttempt(state: WorkUnitsState, workspace: string, initiative: string): number {
  const known = [...(state.attempts[initiative] ?? []).map((a) => a.launch_attempt), ...attemptFolders(workspace, initiative)];
  return known.length === 0 ? 0 : Math.max(...known) + 1;
}

export function requireInitiative(state: WorkUnitsState, initiative: string): void {
  if (state.initiatives[initiative] === undefined) throw new BatonError(ErrorCode.UNKNOWN_ID, `Initiative ${initiative} not found`, { initiative });
}

/** The computation, with a cycle turned into DEPENDENCY_CYCLE (exit 2, details.cycle). */
export function reconcile(
  state: WorkUnitsState,
  initiative: string,
  env: WorkUnitsEnv,
  options: { maxActiveWorkers?: number | undefined; useRecordedCapacity?: boolean },
): InitiativeComputation {
  try {
    return computeInitiative(state, initiative, { config: env.config, now: env.now, ...options });
  } catch (error) {
    if (error instanceof DependencyCycleError) throw new BatonError(WorkUnitErrorCode.DEPENDENCY_CYCLE, error.message, { cycle: error.cycle });
    throw error;
  }
}

export async function initiativePlan(env: WorkUnitsEnv, initiative: string, options: OrchestrateOptions): Promise<PlanDocument> {
  checkInitiativeId(initiative);
  const max = parseMaxActiveWorkers(options.max_active_workers);
  // A dry run: probes look, but their results stay in memory.
  const { state } = await loadObserved(env, { append: false });
  requireInitiative(state, initiative);
  const c = reconcile(state, initiative, env, { maxActiveWorkers: max });
  return planDocument(c, nextAttempt(state, env.workspace, initiative), env.now);
}

export async function initiativeStatus(
  env: WorkUnitsEnv,
  initiative: string,
  options: OrchestrateOptions,
): Promise<{ document: StatusDocument; state: WorkUnitsState; computation: InitiativeComputation }> {
  checkInitiativeId(initiative);
  const max = parseMaxActiveWorkers(options.max_active_workers);
  const { state } = await loadObserved(env, { append: true });
  requireInitiative(state, initiative);
  const computation = reconcile(state, initiative, env, { maxActiveWorkers: max, useRecordedCapacity: true });
  return { document: statusDocument(computation, env.now), state, computation };
}
