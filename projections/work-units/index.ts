import { explainWu } from './explain-view.js';
import { workUnitsProjection, type ViewArgs } from './fold.js';
import { computeInitiative, planDocument, statusDocument } from './initiative-view.js';
import { DependencyCycleError } from './waves.js';

export * from './code-paths.js';
export * from './decision-table.js';
export * from './documents.js';
export * from './evidence.js';
export * from './explain-view.js';
export * from './initiative-view.js';
export * from './settings.js';
export * from './state.js';
export * from './waves.js';

/**
 * The work-unit views under their replay names (`initiative-status`, `initiative-plan`,
 * `wu-explain`), all over one fold (fold.ts).
 */
export { workUnitsProjection, workUnitsStateProjection, type ViewArgs } from './fold.js';

class MissingTarget extends Error {}

function target(args: ViewArgs): string {
  const id = args['target'] ?? args['initiative'] ?? args['wu'];
  if (typeof id !== 'string') throw new MissingTarget('this view needs an id argument (e.g. replay --view initiative-status --to 12 INIT-1)');
  return id;
}

/** Views never throw on history: a cycle or a missing id is an error envelope. */
function guarded<V>(compute: () => V, now: string): V | { v: 1; type: 'error'; generated_at: string; code: string; message: string } {
  try {
    return compute();
  } catch (error) {
    if (error instanceof DependencyCycleError) return { v: 1, type: 'error', generated_at: now, code: 'DEPENDENCY_CYCLE', message: error.message };
    if (error instanceof MissingTarget) return { v: 1, type: 'error', generated_at: now, code: 'INVALID_INPUT', message: error.message };
    throw error;
  }
}

export const initiativeStatusProjection = workUnitsProjection('initiative_status', (state, now, args, config) =>
  guarded(
    () => ({
      v: 1 as const,
      type: 'initiative_status',
      ...statusDocument(computeInitiative(state, target(args), { config, now, useRecordedCapacity: true }), now),
    }),
    now,
  ),
);

export const initiativePlanProjection = workUnitsProjection('initiative_plan', (state, now, args, config) =>
  guarded(() => {
    const id = target(args);
    const c = computeInitiative(state, id, { config, now });
    const attempts = state.attempts[id] ?? [];
    const next = attempts.length === 0 ? 0 : Math.max(...attempts.map((a) => a.launch_attempt)) + 1;
    return { v: 1 as const, type: 'initiative_plan', dry_run: true, ...planDocument(c, next, now) };
  }, now),
);

export const wuExplainProjection = workUnitsProjection('wu_explain', (state, now, args, config) =>
  guarded(() => {
    const id = target(args);
    return explainWu(state, id, config, now) ?? { v: 1 as const, type: 'error', generated_at: now, code: 'UNKNOWN_ID', message: `WU ${id} not found` };
  }, now),
);

export const WORK_UNIT_PROJECTIONS = [initiativeStatusProjection, initiativePlanProjection, wuExplainProjection] as const;
