import { OrchestrationState } from '../../events/work-units/terms.js';
import { assessWorkspace, computeInitiative, membersOf } from '../work-units/initiative-view.js';
import type { WorkUnitsConfig } from '../work-units/settings.js';
import type { WorkUnitsState } from '../work-units/state.js';
import { DependencyCycleError, findCycle } from '../work-units/waves.js';
import type { InitiativeSummary } from './views.js';

/**
 * `baton status`'s `baton.initiatives` (tasks.md §10.5): one entry per initiative that has a WU
 * not `done`, ordered by initiative id (numerically, as WU ids are), with exactly the next safe
 * actions of the initiative's status projection (work-units.md) at this log position. Pure: a
 * function of the work-unit fold, the settings and the clock; no probe runs.
 *
 * An initiative whose dependencies form a cycle has no plan (its status projection is the
 * DEPENDENCY_CYCLE error): it is listed with no safe action rather than failing `status`.
 */
const initiativeNumber = (id: string): number => Number(id.slice('INIT-'.length));

export function initiativeSummaries(state: WorkUnitsState, config: WorkUnitsConfig, now: string): InitiativeSummary[] {
  const ids = Object.keys(state.initiatives).sort((a, b) => initiativeNumber(a) - initiativeNumber(b) || (a < b ? -1 : a > b ? 1 : 0));
  const summaries: InitiativeSummary[] = [];
  // One assessment of the workspace serves every initiative (lane holders are workspace-wide).
  const assessments = assessWorkspace(state, config, now);
  // One search of the whole graph: without a cycle anywhere, no initiative needs its own search.
  const acyclic = findCycle(state, [...assessments.keys()]) === null;
  for (const id of ids) {
    const title = state.initiatives[id]!.title;
    // An initiative whose WUs are all done is left out: known from the assessments alone, without
    // planning it (most initiatives of a long-lived repository), unless a cycle makes it listed.
    const members = membersOf(state, id, assessments);
    if (members.every((m) => assessments.get(m)!.decision.state === OrchestrationState.done) && (acyclic || findCycle(state, members) === null)) continue;
    let computation;
    try {
      computation = computeInitiative(state, id, { config, now, useRecordedCapacity: true, assessments, knownAcyclic: acyclic });
    } catch (error) {
      if (!(error instanceof DependencyCycleError)) throw error;
      summaries.push({ initiative: id, title, blocked_by_integrity: false, next_safe_actions: [] });
      continue;
    }
    if (!computation.rows.some((row) => row.orchestration_state !== OrchestrationState.done)) continue;
    summaries.push({
      initiative: id,
      title,
      blocked_by_integrity: computation.blocked_by_integrity,
      next_safe_actions: computation.next_safe_actions,
    });
  }
  return summaries;
}
