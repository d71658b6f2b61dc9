import { describe, expect, it } from 'vitest';
import { decoded } from '../helpers/decoded.js';
import { initiativeSummaries } from '../../projections/tasks/initiatives.js';
import { computeInitiative } from '../../projections/work-units/initiative-view.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';
import { applyWorkUnits, initWorkUnits } from '../../projections/work-units/state.js';

/**
 * `baton status`'s initiatives (tasks.md §10.5) computed from one assessment of the workspace
 *: a finished initiative is left out, one with a cycle is listed with no action, the
 * others carry exactly the next safe actions of their own status computation.
 */
const NOW = '2026-04-17T12:00:00.000Z';

function fold(raws: { type: string; stream: string; data: Record<string, unknown> }[]) {
  const state = initWorkUnits();
  raws.forEach((r, i) =>
    applyWorkUnits(
      state,
      decoded({ v: 1, seq: i + 1, id: `e${i}`, type: r.type, stream: r.stream, at: NOW, actor: 'system', data: r.data, prev: '', hash: '' }),
    ),
  );
  return state;
}
const init = (id: string) => ({ type: 'initiative.created', stream: `initiative/${id}`, data: { initiative: id, title: id, slug: null, lanes: [] } });
const wu = (id: string, initiative: string, lane: string, deps: string[] = []) => ({
  type: 'wu.defined',
  stream: `wu/${id}`,
  data: { wu_id: id, initiative, lane, title: id, dependencies: deps },
});
const stamp = (id: string) => ({
  type: 'observation.stamp_file',
  stream: `wu/${id}`,
  data: { wu_id: id, path: `.lumenflow/stamps/${id}.done`, present: true, valid: true, content_hash: 'a'.repeat(64) },
});

describe('initiative summaries of baton status', () => {
  it('leaves finished initiatives out, lists a cyclic one with no action, and gives the others their own next safe actions', () => {
    const state = fold([
      init('INIT-1'),
      init('INIT-2'),
      init('INIT-3'),
      init('INIT-4'),
      wu('WU-1', 'INIT-1', 'L1', ['WU-2']),
      wu('WU-2', 'INIT-1', 'L2', ['WU-1']),
      wu('WU-3', 'INIT-2', 'L1'),
      stamp('WU-3'),
      wu('WU-4', 'INIT-3', 'L3', ['WU-3']),
      wu('WU-5', 'INIT-3', 'L3'),
      // Finished, but depending on a cycle elsewhere: listed, as its own status would be an error.
      wu('WU-6', 'INIT-4', 'L4', ['WU-1']),
      stamp('WU-6'),
    ]);
    const summaries = initiativeSummaries(state, DEFAULT_WORK_UNITS_CONFIG, NOW);
    expect(summaries.map((s) => s.initiative)).toEqual(['INIT-1', 'INIT-3', 'INIT-4']);
    expect(summaries[0]!.next_safe_actions).toEqual([]);
    expect(summaries[2]!.next_safe_actions).toEqual([]);
    const own = computeInitiative(state, 'INIT-3', { config: DEFAULT_WORK_UNITS_CONFIG, now: NOW, useRecordedCapacity: true });
    expect(summaries[1]!.next_safe_actions).toEqual(own.next_safe_actions);
    expect(summaries[1]!.next_safe_actions.map((a) => [a.type, a.wu_id])).toEqual([
      ['launch_wu', 'WU-4'],
      ['wait', 'WU-5'],
    ]);
  });

  it('without any cycle, finished initiatives are still left out and active ones planned', () => {
    const state = fold([init('INIT-1'), init('INIT-2'), wu('WU-1', 'INIT-1', 'L1'), stamp('WU-1'), wu('WU-2', 'INIT-2', 'L1', ['WU-1'])]);
    const summaries = initiativeSummaries(state, DEFAULT_WORK_UNITS_CONFIG, NOW);
    expect(summaries.map((s) => [s.initiative, s.next_safe_actions.map((a) => a.type)])).toEqual([['INIT-2', ['launch_wu']]]);
  });
});
