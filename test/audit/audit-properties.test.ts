import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../events/index.js';
import type { NewEvent } from '../../events/envelope.js';
import { auditFindings, type AuditInput } from '../../projections/audit/findings.js';
import { auditLogProjection } from '../../projections/audit/log-fold.js';
import { EMPTY_DISK_FACTS, type CommitFact, type RepositoryFacts } from '../../projections/audit/types.js';
import { flowProjection } from '../../projections/flow/index.js';
import { tasksStateProjection } from '../../projections/tasks/projections.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';
import { runProjections } from '../../src/store/projection-runner.js';

/**
 * The audit's findings on random histories (sessions that claim, checkpoint, heartbeat, end and go
 * silent; signals that require an ACK and the receipts they get) over a fixed repository: the same
 * log and facts give the same findings, whatever order git listed its commits in; and the audit of
 * a past position (`--at N`: the runner folding to N, its clock the time of event N) equals the
 * audit of the log truncated to N.
 */
const SESSIONS = ['session_a', 'session_b', 'session_c'] as const;
const WUS = ['WU-1', 'WU-2', 'WU-3'] as const;
const T0 = Date.parse('2026-04-17T10:00:00.000Z');
const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();
const WINDOWS = { stall_seconds: 30 * 60, ack_seconds: 20 * 60, flow_phase_seconds: 3600 };

type Op =
  | { kind: 'claim' | 'checkpoint' | 'release'; who: number; wu: number; wait: number }
  | { kind: 'heartbeat' | 'end'; who: number; wait: number }
  | { kind: 'signal'; who: number; to: number; wait: number }
  | { kind: 'ack'; who: number; signal: number; wait: number };

const wait = fc.nat(20);
const who = fc.nat(2);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('claim' as const, 'checkpoint' as const, 'release' as const), who, wu: fc.nat(2), wait }),
  fc.record({ kind: fc.constantFrom('heartbeat' as const, 'end' as const), who, wait }),
  fc.record({ kind: fc.constant('signal' as const), who, to: who, wait }),
  fc.record({ kind: fc.constant('ack' as const), who, signal: fc.nat(5), wait }),
);

/** The ops as events with their own times and actors (the store checks each against its schema). */
function eventsOf(ops: readonly Op[]): NewEvent[] {
  const out: NewEvent[] = [];
  let minutes = 0;
  const push = (type: string, stream: string, data: Record<string, unknown>, actor: string): void => {
    out.push({ type, stream, data, actor, at: iso(minutes) });
  };
  for (const id of SESSIONS) push('session.started', `session/${id}`, { session_id: id, display_name: `N${id.at(-1)}`, ttl_seconds: 1800 }, id);
  for (const [i, id] of WUS.entries()) push('wu.defined', `wu/${id}`, { wu_id: id, title: id, lane: `L${i}`, code_paths: [`src/w${i}`] }, 'system');
  const signals: string[] = [];
  for (const op of ops) {
    minutes += op.wait;
    const actor = SESSIONS[op.who]!;
    if (op.kind === 'claim' || op.kind === 'checkpoint' || op.kind === 'release') {
      const wu = WUS[op.wu]!;
      if (op.kind === 'claim')
        push(
          'wu.claimed',
          `wu/${wu}`,
          { wu_id: wu, session_id: actor, mode: 'branch-only', worktree_path: null, branch: `lane/w/${wu.toLowerCase()}`, takeover_from: null },
          actor,
        );
      else if (op.kind === 'checkpoint')
        push('wu.checkpointed', `wu/${wu}`, { wu_id: wu, session_id: actor, note: 'n', progress: null, next_steps: null }, actor);
      else push('wu.released', `wu/${wu}`, { wu_id: wu, reason: 'r', previous_claimant: actor }, actor);
    } else if (op.kind === 'heartbeat' || op.kind === 'end') {
      if (op.kind === 'heartbeat') push('session.heartbeat', `session/${actor}`, { session_id: actor }, actor);
      else push('session.ended', `session/${actor}`, { session_id: actor, status: 'succeeded' }, actor);
    } else if (op.kind === 'signal') {
      const id = `sig-${String(signals.length).padStart(4, '0')}`;
      const to = SESSIONS[op.to]!;
      signals.push(id);
      push(
        'signal.sent',
        `thread/t${id}`,
        {
          schema_version: 'A2A.V1',
          signal_id: id,
          sender_identity: actor,
          recipients: [to],
          target_agent: to,
          thread_id: `t${id}`,
          intent: 'PROPOSE',
          interrupt_class: 'priority',
          requires_ack: true,
          message: 'ok?',
          origin: 'local',
          created_at: iso(minutes),
          sender_session_id: actor,
        },
        actor,
      );
    } else if (op.kind === 'ack' && signals.length > 0) {
      const id = signals[op.signal % signals.length]!;
      push(
        'receipt.recorded',
        `thread/t${id}`,
        {
          signal_id: id,
          reader_identity: actor,
          read_at: iso(minutes),
          delivery_state: 'acked',
          thread_id: `t${id}`,
          session_id: actor,
          via: 'inbox',
          cause_signal_id: null,
        },
        actor,
      );
    }
  }
  return out;
}

/** A repository: each WU's branch with a commit touching its code path, some on main, at fixed times. */
function repository(order: readonly number[]): RepositoryFacts {
  const commits: CommitFact[] = [
    { id: 'c0', parents: [], at: iso(0), subject: 'init', paths: ['README'] },
    { id: 'c1', parents: ['c0'], at: iso(15), subject: 'w0', paths: ['src/w0/a.ts'] },
    { id: 'c2', parents: ['c0'], at: iso(40), subject: 'w1 on main', paths: ['src/w1/b.ts'] },
    { id: 'c3', parents: ['c2'], at: iso(90), subject: 'w2 on main', paths: ['src/w2/c.ts', 'src/w0/d.ts'] },
  ];
  return {
    top_level: '/repo',
    integration: { name: 'main', ref: 'refs/heads/main', commit: 'c3' },
    branches: { main: 'c3', 'lane/w/wu-1': 'c1' },
    worktrees: [{ path: '/repo', relative: '.', head: 'c3', branch: 'main', prunable: false }],
    commits: order.map((i) => commits[i % commits.length]!).filter((c, i, all) => all.indexOf(c) === i),
  };
}

const catalog = createCatalog();
const FOLDS = [tasksStateProjection, workUnitsStateProjection, flowProjection, auditLogProjection] as const;

async function storeOf(events: readonly NewEvent[]): Promise<MemoryEventStore> {
  const store = new MemoryEventStore({ catalog });
  for (const e of events) await store.append([e]);
  return store;
}

async function audit(store: MemoryEventStore, now: string, repo: RepositoryFacts, to?: number): Promise<ReturnType<typeof auditFindings>> {
  const [tasks, workUnits, flows, log] = await runProjections(store, FOLDS, { catalog, now, ...(to !== undefined ? { to } : {}) });
  const input: AuditInput = {
    now,
    work_units: workUnits.state,
    coordination: tasks.state.coordination,
    tasks_findings: tasks.state.findings,
    flows: flows.state,
    log: log.state,
    repository: repo,
    disk: EMPTY_DISK_FACTS,
    windows: WINDOWS,
  };
  return auditFindings(input);
}

describe('audit findings (property)', () => {
  it('are deterministic for a given log and facts, whatever order git listed the commits in', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 30 }), fc.shuffledSubarray([0, 1, 2, 3], { minLength: 4 }), async (ops, order) => {
        const events = eventsOf(ops);
        const now = iso(events.length * 5 + 200);
        const a = await audit(await storeOf(events), now, repository([0, 1, 2, 3]));
        const b = await audit(await storeOf(events), now, repository(order));
        expect(b).toEqual(a);
      }),
      { numRuns: 40 },
    );
  });

  it('of a past position (--at N) equal those of the log truncated to N', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), fc.nat(), async (ops, pick) => {
        const events = eventsOf(ops);
        const n = 1 + (pick % events.length);
        const asOf = events[n - 1]!.at!;
        const whole = await storeOf(events);
        const truncated = await storeOf(events.slice(0, n));
        expect(await audit(whole, asOf, repository([0, 1, 2, 3]), n)).toEqual(await audit(truncated, asOf, repository([0, 1, 2, 3])));
      }),
      { numRuns: 40 },
    );
  });

  it('find what these histories hold: holders gone silent, stalls, unanswered signals, commits on reserved paths', async () => {
    const events = eventsOf([
      { kind: 'claim', who: 0, wu: 0, wait: 1 },
      { kind: 'claim', who: 1, wu: 2, wait: 1 },
      { kind: 'signal', who: 1, to: 2, wait: 1 },
      { kind: 'heartbeat', who: 1, wait: 60 },
    ]);
    const findings = await audit(await storeOf(events), iso(65), repository([0, 1, 2, 3]));
    expect(findings.map((f) => `${f.code} ${f.subject.id}`)).toEqual([
      'SESSION_LAPSE_UNRECORDED session_a',
      'SIGNAL_ACK_OVERDUE sig-0000',
      'WU_BRANCH_MISSING WU-3',
      'WU_HOLDER_NOT_LIVE WU-1',
      'WU_RESERVATION_VIOLATED WU-3',
      'WU_STALLED WU-1',
      'WU_STALLED WU-3',
      'SESSION_NEVER_ENDED session_c',
    ]);
  });
});
