import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_STATES, type TaskState } from '../../events/tasks/vocabulary.js';
import { inParallel } from '../helpers/cli.js';
import { removeTempDirs } from '../helpers/workspace.js';
import { appendBatch, logBytes, move, refuseMove, workspace, type Ws } from './helpers.js';
import { TASK_PARITY_MATRIX } from './parity-matrix.js';

/**
 * T01 — the full 8 × 8 matrix through the built binary: exactly the 18 legal moves succeed;
 * the 46 others exit 2 with ILLEGAL_TRANSITION, the right message and details, and append nothing.
 * One workspace holds a task per (from, to) pair, prepared in one batch append; the illegal
 * moves run first and the log's bytes are compared, then the legal ones run.
 */
const TERMINAL = new Set<TaskState>(['completed', 'failed', 'cancelled', 'superseded']);
const S = 'session_matrix';
const taskFor = (from: TaskState, to: TaskState): string => `task_${from}__${to}`;

let ws: Ws;
beforeAll(async () => {
  ws = await workspace('baton-matrix-');
  const lines: { type: string; stream: string; data: unknown }[] = [
    { type: 'session.started', stream: `session/${S}`, data: { session_id: S, display_name: 'Matrix', ttl_seconds: 14400 } },
  ];
  for (const from of TASK_STATES) {
    for (const to of TASK_STATES) {
      const id = taskFor(from, to);
      // create; `--state running`; then one transition from running (T01's recipe).
      const created = from === 'queued' ? 'queued' : 'running';
      lines.push({ type: 'task.created', stream: `task/${id}`, data: { task_id: id, session_id: S, label: id, state: created } });
      if (created === 'running' && from !== 'running') {
        lines.push({ type: 'task.transitioned', stream: `task/${id}`, data: { task_id: id, from: 'running', to: from } });
      }
    }
  }
  await appendBatch(ws, lines, S);
}, 120_000);
afterAll(removeTempDirs);

describe('T01: the legal matrix', () => {
  it('T01: every illegal pair (46) exits 2 with ILLEGAL_TRANSITION, exact message and details, and appends nothing', async () => {
    const illegal = TASK_STATES.flatMap((from) => TASK_STATES.filter((to) => !TASK_PARITY_MATRIX[from].includes(to)).map((to) => [from, to] as const));
    expect(illegal).toHaveLength(46);
    const before = logBytes(ws);
    const results = await inParallel(
      4,
      illegal.map(
        ([from, to]) =>
          () =>
            refuseMove(ws, taskFor(from, to), to, { session: S }),
      ),
    );
    illegal.forEach(([from, to], i) => {
      const e = results[i]!;
      const id = taskFor(from, to);
      expect(e.exit, `${from} → ${to}`).toBe(2);
      expect(e.code).toBe('ILLEGAL_TRANSITION');
      expect(e.details).toEqual({ task_id: id, from, to });
      expect(e.message).toBe(
        TERMINAL.has(from)
          ? `Task ${id} is already terminal in state '${from}' — terminal tasks cannot transition.`
          : `Task ${id} cannot transition from '${from}' to '${to}' — not in the allowed transition set.`,
      );
    });
    expect(logBytes(ws)).toBe(before);
  }, 180_000);

  it('T01: every legal pair (18) exits 0 with the task in the target state', async () => {
    const legal = TASK_STATES.flatMap((from) => TASK_PARITY_MATRIX[from].map((to) => [from, to] as const));
    expect(legal).toHaveLength(18);
    // `move` requires exit 0 and parses the printed task.
    const results = await inParallel(
      4,
      legal.map(
        ([, to], i) =>
          () =>
            move(ws, taskFor(legal[i]![0], to), to, { session: S }),
      ),
    );
    legal.forEach(([from, to], i) => {
      expect(results[i]!.state, `${from} → ${to}`).toBe(to);
      expect(results[i]!.id).toBe(taskFor(from, to));
    });
    const log = await ws.run(['log', 'show', '--type', 'task.transitioned']);
    expect(log.lines).toHaveLength(18 + 6 * 8);
  }, 180_000);
});
