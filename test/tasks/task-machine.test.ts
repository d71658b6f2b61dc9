import { adjacencyMapToArray, getAdjacencyMap, getShortestPaths, getSimplePaths } from '@xstate/graph';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { isTerminal, TASK_STATES, TaskState, type TaskState as TaskStateT } from '../../events/tasks/vocabulary.js';
import { ALL_TASK_EVENTS, machineAllows, taskMachine, toEvent } from '../../machines/task.js';
import { IllegalTaskTransitionError, isLegalTransition, LEGAL_TRANSITIONS } from '../../machines/task-table.js';
import { TASK_PARITY_MATRIX } from './parity-matrix.js';

describe('the task machine', () => {
  it('has exactly the eight states, the four terminal ones final', () => {
    expect(Object.keys(taskMachine.states).sort()).toEqual([...TASK_STATES].sort());
    for (const s of TASK_STATES) expect(taskMachine.states[s]!.type === 'final').toBe(isTerminal(s));
  });

  it('allows exactly the 18 legal transitions of the parity matrix', () => {
    let legal = 0;
    for (const from of TASK_STATES) {
      for (const to of TASK_STATES) {
        const expected = TASK_PARITY_MATRIX[from].includes(to);
        expect(machineAllows('task_x', from, to), `${from} → ${to}`).toBe(expected);
        if (expected) legal++;
      }
    }
    expect(legal).toBe(18);
  });

  it('the fold’s transition table agrees with the machine on every pair (property)', () => {
    const state = fc.constantFrom(...TASK_STATES);
    fc.assert(
      fc.property(state, state, (from, to) => {
        expect(isLegalTransition(from, to)).toBe(machineAllows('task_p', from, to));
        expect(LEGAL_TRANSITIONS[from].includes(to)).toBe(machineAllows('task_p', from, to));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a task superseded by itself (guard notSupersededBySelf)', () => {
    expect(machineAllows('task_a', TaskState.running, TaskState.superseded, 'task_a')).toBe(false);
    expect(machineAllows('task_a', TaskState.running, TaskState.superseded, 'task_b')).toBe(true);
  });

  it('names the illegal move in exactly the two message forms', () => {
    expect(new IllegalTaskTransitionError('task_a', 'completed', 'running').message).toBe(
      "Task task_a is already terminal in state 'completed' — terminal tasks cannot transition.",
    );
    const e = new IllegalTaskTransitionError('task_a', 'queued', 'completed');
    expect(e.message).toBe("Task task_a cannot transition from 'queued' to 'completed' — not in the allowed transition set.");
    expect([e.name, e.taskId, e.from, e.to]).toEqual(['IllegalTaskTransitionError', 'task_a', 'queued', 'completed']);
  });
});

describe('model-based: paths generated from the machine graph', () => {
  const options = { events: [...ALL_TASK_EVENTS], input: { task_id: 'task_m' } };

  it('every state is reachable from queued, and each shortest path replays on an actor and on the table', () => {
    const paths = getShortestPaths(taskMachine, options);
    const reached = new Set(paths.map((p) => String(p.state.value)));
    expect([...reached].sort()).toEqual([...TASK_STATES].sort());
    for (const path of paths)
      checkPath(
        path.steps.map((s) => s.event.type),
        String(path.state.value),
      );
  });

  it('every simple path agrees with the fold table step by step', () => {
    const paths = getSimplePaths(taskMachine, options);
    for (const path of paths)
      checkPath(
        path.steps.map((s) => s.event.type),
        String(path.state.value),
      );
  });

  it('the graph’s edges are exactly the 18 legal moves, and each one is legal in the fold table', () => {
    const edges = adjacencyMapToArray(getAdjacencyMap(taskMachine, options))
      .filter((e) => String(e.state.value) !== String(e.nextState.value))
      .map((e) => {
        const from = String(e.state.value) as TaskStateT;
        const to = String(e.nextState.value) as TaskStateT;
        expect(e.event.type).toBe(`to.${to}`);
        expect(isLegalTransition(from, to)).toBe(true);
        return `${from}>${to}`;
      });
    const expected = TASK_STATES.flatMap((f) => TASK_PARITY_MATRIX[f].map((t) => `${f}>${t}`));
    expect([...new Set(edges)].sort()).toEqual(expected.sort());
  });
});

/** Replay a path's events on a live actor and on the table: same states, every step legal. */
function checkPath(types: string[], finalState: string): void {
  const actor = createActor(taskMachine, { input: { task_id: 'task_m' } }).start();
  let tableState: TaskStateT = TaskState.queued;
  for (const type of types) {
    if (type === 'xstate.init') continue;
    const to = type.slice('to.'.length) as TaskStateT;
    expect(isLegalTransition(tableState, to), `${tableState} → ${to}`).toBe(true);
    actor.send(toEvent(to));
    tableState = to;
    expect(actor.getSnapshot().value).toBe(tableState);
  }
  expect(tableState).toBe(finalState);
  actor.stop();
}
