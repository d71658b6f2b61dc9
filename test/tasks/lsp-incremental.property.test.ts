import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../events/envelope.js';
import { decoded } from '../helpers/decoded.js';
import { TASK_STATES } from '../../events/tasks/vocabulary.js';
import { applyTasks, deserializeTasks, initTasks, serializeTasks, type TasksState } from '../../projections/tasks/state.js';
import { sessionsEnvelope, statusEnvelope, tasksEnvelope } from '../../projections/tasks/views.js';
import { lastStoppingPointProjection } from '../../projections/tasks/projections.js';

/**
 * The last stopping point folded incrementally (fold a prefix, snapshot it through JSON, fold the
 * rest) equals the one folded from scratch, byte for byte, for random task histories — illegal
 * events included (they become findings, never applied).
 */
const T0 = Date.parse('2026-05-09T12:00:00.000Z');
const SESSIONS = ['session_a', 'session_b'];
const TASKS = ['task_1', 'task_2', 'task_3', 'task_4'];

type Step =
  | { kind: 'start'; s: number }
  | { kind: 'end'; s: number }
  | { kind: 'heartbeat'; s: number }
  | { kind: 'create'; t: number; s: number; running: boolean }
  | { kind: 'move'; t: number; from: number; to: number; reason: boolean; checkpoint: number }
  | { kind: 'own'; t: number; branch: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('start' as const), s: fc.nat(1) }),
  fc.record({ kind: fc.constant('end' as const), s: fc.nat(1) }),
  fc.record({ kind: fc.constant('heartbeat' as const), s: fc.nat(1) }),
  fc.record({ kind: fc.constant('create' as const), t: fc.nat(3), s: fc.nat(1), running: fc.boolean() }),
  fc.record({ kind: fc.constant('move' as const), t: fc.nat(3), from: fc.nat(7), to: fc.nat(7), reason: fc.boolean(), checkpoint: fc.nat(3) }),
  fc.record({ kind: fc.constant('own' as const), t: fc.nat(3), branch: fc.nat(2) }),
);

const KINDS = ['user_choice', 'mcp_install', 'manual_verification', 'license_review'];

function toEvents(steps: Step[], gapsMs: number[]): StoredEvent[] {
  let at = T0;
  const held = new Map<string, string>();
  return steps.map((st, i) => {
    at += gapsMs[i % gapsMs.length]!;
    const base = { v: 1 as const, seq: i + 1, id: `e${i + 1}`, at: new Date(at).toISOString(), prev: '0'.repeat(64), hash: '0'.repeat(64) };
    switch (st.kind) {
      case 'start':
        return {
          ...base,
          type: 'session.started',
          stream: `session/${SESSIONS[st.s]}`,
          actor: 'system',
          data: { session_id: SESSIONS[st.s], display_name: `N${st.s}`, goal: 'g', ttl_seconds: 3600 },
        };
      case 'end':
        return { ...base, type: 'session.ended', stream: `session/${SESSIONS[st.s]}`, actor: 'system', data: { session_id: SESSIONS[st.s], status: 'failed' } };
      case 'heartbeat':
        return { ...base, type: 'session.heartbeat', stream: `session/${SESSIONS[st.s]}`, actor: SESSIONS[st.s]!, data: { session_id: SESSIONS[st.s] } };
      case 'create':
        return {
          ...base,
          type: 'task.created',
          stream: `task/${TASKS[st.t]}`,
          actor: SESSIONS[st.s]!,
          data: { task_id: TASKS[st.t], session_id: SESSIONS[st.s], label: `L${st.t}`, state: st.running ? 'running' : 'queued' },
        };
      case 'move': {
        // Mostly use the state the fold holds (legal-ish); sometimes a random `from` (a finding).
        const task = TASKS[st.t]!;
        const from = st.from < 6 ? (held.get(task) ?? TASK_STATES[st.from]!) : TASK_STATES[st.from]!;
        const to = TASK_STATES[st.to]!;
        held.set(task, to);
        return {
          ...base,
          type: 'task.transitioned',
          stream: `task/${task}`,
          actor: 'system',
          data: {
            task_id: task,
            from,
            to,
            ...(st.reason ? { reason: st.checkpoint % 2 === 0 ? 'login expired' : 'flaky CI' } : {}),
            ...(to === 'waiting_for_user' && st.checkpoint > 0 ? { checkpoint: { id: `cp${i}`, kind: KINDS[st.checkpoint]!, summary: 's' } } : {}),
          },
        };
      }
      case 'own':
        return {
          ...base,
          type: 'task.ownership_added',
          stream: `task/${TASKS[st.t]}`,
          actor: 'system',
          data: { task_id: TASKS[st.t], ownership: { kind: 'branch', name: `b${st.branch}` } },
        };
    }
  });
}

function views(state: TasksState, now: string): string {
  const ctx = { now, installDir: '/ws/my project', invocation: ['baton'] };
  return JSON.stringify([
    statusEnvelope(state, ctx, { storePath: '/ws/.baton/log', storeExists: true }),
    tasksEnvelope(state, ctx, {}),
    sessionsEnvelope(state, ctx),
  ]);
}

describe('last stopping point: incremental equals from scratch', () => {
  it('for random task histories, cut anywhere and snapshotted through JSON', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 6 * 3600_000 }), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.integer({ min: 0, max: 3 * 86_400_000 }),
        (steps, gaps, cutSeed, after) => {
          const events = toEvents(steps, gaps).map(decoded);
          const now = new Date(Date.parse(events.at(-1)!.at) + after).toISOString();
          const lsp = lastStoppingPointProjection;
          let scratch = lsp.init();
          for (const e of events) scratch = lsp.apply(scratch, e);
          const cut = cutSeed % (events.length + 1);
          let partial = lsp.init();
          for (const e of events.slice(0, cut)) partial = lsp.apply(partial, e);
          let resumed = lsp.deserialize!(JSON.parse(JSON.stringify(lsp.serialize!(partial))));
          for (const e of events.slice(cut)) resumed = lsp.apply(resumed, e);
          expect(views(resumed.tasks, now)).toBe(views(scratch.tasks, now));
          const args = { install_dir: '/ws/my project', store_path: '/ws/.baton/log', store_exists: true };
          expect(JSON.stringify(lsp.viewWith(resumed, now, args))).toBe(JSON.stringify(lsp.viewWith(scratch, now, args)));
          // The tasks fold on its own (every tasks command's snapshot) agrees with the one inside.
          let tasksOnly = initTasks();
          for (const e of events.slice(0, cut)) tasksOnly = applyTasks(tasksOnly, e);
          tasksOnly = deserializeTasks(JSON.parse(JSON.stringify(serializeTasks(tasksOnly))));
          for (const e of events.slice(cut)) tasksOnly = applyTasks(tasksOnly, e);
          expect(views(tasksOnly, now)).toBe(views(scratch.tasks, now));
          // Folding never throws and every task event is either applied or a finding.
          expect(scratch.tasks.findings.every((f) => f.seq >= 1)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
