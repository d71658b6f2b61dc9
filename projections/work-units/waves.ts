import { compareWuIds } from '../../events/work-units/terms.js';
import { depsOf } from './evidence.js';
import type { WorkUnitsState } from './state.js';
import { wuSummary } from './lazy-records.js';

/**
 * Dependency-graph work of work-units.md §7.1–7.2: the cycle check (on the scheduling edges,
 * external ones included) and logical waves (longest path from a root, in-initiative edges only).
 */
export class DependencyCycleError extends Error {
  override readonly name = 'DependencyCycleError';
  constructor(readonly cycle: string[]) {
    super(`Dependency cycle: ${cycle.join(' -> ')}`);
  }
}

/** The first cycle a DFS in numeric order finds among WUs reachable from `roots`, rotated to its lowest id; null if none. */
export function findCycle(state: WorkUnitsState, roots: readonly string[]): string[] | null {
  const color = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    color.set(id, 1);
    stack.push(id);
    // The summary's dependencies: a search of the whole graph decodes no record (lazy-records.ts).
    for (const dep of wuSummary(state, id)?.deps ?? []) {
      const c = color.get(dep);
      if (c === 1) {
        const cycle = stack.slice(stack.indexOf(dep));
        let lowest = 0;
        for (let i = 1; i < cycle.length; i++) if (compareWuIds(cycle[i]!, cycle[lowest]!) < 0) lowest = i;
        const rotated = [...cycle.slice(lowest), ...cycle.slice(0, lowest)];
        return [...rotated, rotated[0]!];
      }
      if (c === undefined) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    stack.pop();
    color.set(id, 2);
    return null;
  };
  for (const root of [...roots].sort(compareWuIds)) {
    if (color.has(root)) continue;
    const found = visit(root);
    if (found) return found;
  }
  return null;
}

/** logical_wave per member: 0 without in-initiative deps, else 1 + the max over them. Graph must be acyclic. */
export function logicalWaves(state: WorkUnitsState, members: ReadonlySet<string>): Map<string, number> {
  const waves = new Map<string, number>();
  const wave = (id: string): number => {
    const known = waves.get(id);
    if (known !== undefined) return known;
    let w = 0;
    for (const dep of depsOf(state.wus[id]!)) if (members.has(dep)) w = Math.max(w, wave(dep) + 1);
    waves.set(id, w);
    return w;
  };
  for (const id of members) wave(id);
  return waves;
}
