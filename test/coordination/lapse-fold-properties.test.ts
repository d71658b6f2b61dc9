import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../../events/baton-event.js';
import { decideLapses } from '../../deciders/sessions.js';
import { currentLapse } from '../../projections/coordination/sessions.js';
import {
  applyCoordination,
  deserializeCoordination,
  initCoordination,
  serializeCoordination,
  type CoordinationState,
} from '../../projections/coordination/state.js';
import { decodeWorkUnitsState, encodeWorkUnitsState } from '../../projections/work-units/snapshot-codec.js';
import { applyWorkUnits, initWorkUnits, type WorkUnitsState } from '../../projections/work-units/state.js';
import { dataOf, decoded, mustAccept } from '../helpers/decoded.js';

/**
 * Lapses in the folds, on random histories of sessions that claim, release, heartbeat, end and go
 * silent, with commands that notice and record lapses (`decideLapses`, as `wu claim`, `wu status`
 * and `baton sessions` do): both folds give the same state incrementally (through a snapshot round
 * trip at any split) as from scratch; a lapse is recorded once per (session, last_seen), and the two
 * folds agree on which sessions stand lapsed.
 */
const SESSIONS = ['session_a', 'session_b', 'session_c'] as const;
const WUS = ['WU-1', 'WU-2', 'WU-3'] as const;
const T0 = Date.parse('2026-04-17T10:00:00.000Z');
const TTL = 600;

type SessionOp = { kind: 'heartbeat' | 'end'; who: number; wait: number };
type ClaimOp = { kind: 'claim' | 'release'; who: number; wu: number; wait: number };
type Op = SessionOp | ClaimOp | { kind: 'notice'; who: number | null; wait: number };

const wait = fc.nat(25);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('heartbeat' as const, 'end' as const), who: fc.nat(2), wait }),
  fc.record({ kind: fc.constantFrom('claim' as const, 'release' as const), who: fc.nat(2), wu: fc.nat(2), wait }),
  fc.record({ kind: fc.constant('notice' as const), who: fc.option(fc.nat(2), { nil: null }), wait }),
);

interface Built {
  log: BatonEvent[];
  /** The clock of each notice, and whether deciding again at once found nothing. */
  noticesIdempotent: boolean[];
}

/** The ops as a log; each notice appends what decideLapses answers on the work-unit fold so far. */
function build(ops: readonly Op[]): Built {
  const log: BatonEvent[] = [];
  let wu = initWorkUnits();
  let minutes = 0;
  const push = (type: string, stream: string, data: Record<string, unknown>, actor: string): void => {
    const event = mustAccept(decoded({ v: 1, seq: log.length + 1, id: `e${log.length + 1}`, type, stream, at: iso(minutes), actor, data, prev: '', hash: '' }));
    log.push(event);
    wu = applyWorkUnits(wu, event);
  };
  for (const id of SESSIONS) push('session.started', `session/${id}`, { session_id: id, display_name: `N${id.at(-1)}`, ttl_seconds: TTL }, id);
  for (const id of WUS) push('wu.defined', `wu/${id}`, { wu_id: id, title: id, lane: 'L1', dependencies: [], code_paths: [] }, 'system');
  const noticesIdempotent: boolean[] = [];
  for (const op of ops) {
    minutes += op.wait;
    if (op.kind === 'notice') {
      const actor = op.who === null ? 'system' : SESSIONS[op.who]!;
      for (const e of decideLapses(wu, iso(minutes), actor)?.events ?? []) push(e.type, e.stream, e.data, actor);
      noticesIdempotent.push(decideLapses(wu, iso(minutes), actor) === null);
      continue;
    }
    const who = SESSIONS[op.who]!;
    if ('wu' in op) {
      const id = WUS[op.wu]!;
      if (op.kind === 'claim')
        push('wu.claimed', `wu/${id}`, { wu_id: id, session_id: who, mode: 'worktree', worktree_path: null, branch: null, takeover_from: null }, who);
      else push('wu.released', `wu/${id}`, { wu_id: id, reason: 'r', previous_claimant: who }, who);
    } else if (op.kind === 'heartbeat') push('session.heartbeat', `session/${who}`, { session_id: who }, who);
    else push('session.ended', `session/${who}`, { session_id: who, status: 'succeeded' }, who);
  }
  return { log, noticesIdempotent };
}

const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();
const foldCoordination = (events: readonly BatonEvent[], state: CoordinationState = initCoordination()) => events.reduce(applyCoordination, state);
const foldWorkUnits = (events: readonly BatonEvent[], state: WorkUnitsState = initWorkUnits()) => events.reduce(applyWorkUnits, state);

describe('lapses in the folds', () => {
  it('incremental (snapshot round trip at any split) equals from scratch, for both folds', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), fc.nat(), (ops, cut) => {
        const { log } = build(ops);
        const k = cut % (log.length + 1);
        const coordination = foldCoordination(
          log.slice(k),
          deserializeCoordination(JSON.parse(JSON.stringify(serializeCoordination(foldCoordination(log.slice(0, k)))))),
        );
        expect(JSON.stringify(serializeCoordination(coordination))).toBe(JSON.stringify(serializeCoordination(foldCoordination(log))));
        for (const form of ['plain-1', 'shapes-marks-1'] as const) {
          const snapshot = decodeWorkUnitsState(JSON.parse(JSON.stringify(encodeWorkUnitsState(foldWorkUnits(log.slice(0, k)), form))));
          expect(JSON.stringify(foldWorkUnits(log.slice(k), snapshot))).toBe(JSON.stringify(foldWorkUnits(log)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a lapse is recorded once per session and last_seen; deciding again at once finds nothing', () => {
    // The generator does produce lapses: A claims, goes silent past its TTL, is noticed twice, comes back, lapses again.
    const example = build([
      { kind: 'claim', who: 0, wu: 0, wait: 0 },
      { kind: 'notice', who: 1, wait: 20 },
      { kind: 'notice', who: null, wait: 5 },
      { kind: 'heartbeat', who: 0, wait: 1 },
      { kind: 'notice', who: null, wait: 11 },
    ]);
    expect(example.log.filter((e) => e.type === 'session.lapsed').map((e) => [dataOf(e)['session_id'], dataOf(e)['held_wus']])).toEqual([
      ['session_a', ['WU-1']],
      ['session_a', ['WU-1']],
    ]);
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const { log, noticesIdempotent } = build(ops);
        const lapses = log.filter((e) => e.type === 'session.lapsed').map((e) => `${String(dataOf(e)['session_id'])} ${String(dataOf(e)['last_seen'])}`);
        expect(new Set(lapses).size).toBe(lapses.length);
        expect(noticesIdempotent.every(Boolean)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('the stream versions a lapse expects are the log’s own; both folds agree on which sessions stand lapsed', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const { log } = build(ops);
        const wu = foldWorkUnits(log);
        const coordination = foldCoordination(log);
        for (const id of SESSIONS) {
          expect(wu.session_streams[id]).toBe(log.filter((e) => e.stream === `session/${id}`).length);
          const facts = wu.sessions[id]!;
          const recorded = facts.lapse !== undefined && Date.parse(facts.lapse.last_seen) >= Date.parse(facts.last_heartbeat_at);
          expect(currentLapse(coordination.sessions.get(id)!) !== null, id).toBe(recorded);
        }
      }),
      { numRuns: 300 },
    );
  });
});
