import { logStatsProjection } from './log-stats.js';
import { convergenceProjection, inboxProjection, rosterProjection } from './coordination/index.js';
import { FLOW_PROJECTIONS } from './flow/index.js';
import { WORK_UNIT_PROJECTIONS } from './work-units/index.js';
import { TASK_PROJECTIONS } from './tasks/projections.js';
import type { AnyProjection } from './projection.js';

export * from './log-stats.js';
export * from './projection.js';

/** Every projection `replay --view NAME` can show. Each domain issue adds its projections here. */
export const ALL_PROJECTIONS: readonly AnyProjection[] = [
  logStatsProjection,
  rosterProjection,
  inboxProjection,
  convergenceProjection,
  ...FLOW_PROJECTIONS,
  ...TASK_PROJECTIONS,
  ...WORK_UNIT_PROJECTIONS,
];

/**
 * Projections by name. A null-prototype object, so a view name like `constructor` or `__proto__`
 * finds nothing instead of an Object method.
 */
export const PROJECTIONS: Readonly<Record<string, AnyProjection>> = registry(ALL_PROJECTIONS);

function registry(projections: readonly AnyProjection[]): Readonly<Record<string, AnyProjection>> {
  const byName = Object.create(null) as Record<string, AnyProjection>;
  for (const projection of projections) {
    if (Object.hasOwn(byName, projection.name)) throw new Error(`projection ${projection.name} registered twice`);
    byName[projection.name] = projection;
  }
  return Object.freeze(byName);
}
