import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../../events/baton-event.js';
import { decoded } from '../helpers/decoded.js';
import { deserializeState, serializeState } from '../../projections/projection.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';
import { computeInitiative, statusDocument } from '../../projections/work-units/initiative-view.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { decodeWorkUnitsState, encodeWorkUnitsState, snapshotFormFor } from '../../projections/work-units/snapshot-codec.js';
import { applyWorkUnits, initWorkUnits, type WorkUnitsState } from '../../projections/work-units/state.js';
import { listWus, showWu } from '../../projections/work-units/listing.js';
import { decodePaged, encodePaged } from '../../projections/work-units/paged-codec.js';
import { heldWorkUnits } from '../../projections/work-units/held.js';
import { liveReservations } from '../../projections/work-units/reservations.js';
import { findCycle } from '../../projections/work-units/waves.js';
import { initiativeSummaries } from '../../projections/tasks/initiatives.js';
import { bodyOf } from '../../src/store/snapshots.js';
import { lazyRecords } from '../../projections/work-units/lazy-records.js';
import { newWuRecord, type WuRecord } from '../../projections/work-units/records.js';

/**
 * The work-unit fold's snapshot form (projections/work-units/snapshot-codec.ts): stored
 * and read back, it is the state a JSON round trip gives, byte for byte; folding on from it gives
 * the views folding from scratch gives; and on an imported repository it is smaller than the log.
 */
const WUS = ['WU-1', 'WU-2', 'WU-3', 'WU-4', 'WU-5'];
const T0 = Date.parse('2026-04-17T10:00:00Z');
const NOW = new Date(T0 + 30 * 3600_000).toISOString();

type Raw = { type: string; stream: string; data: Record<string, unknown> };

const yamlFields = fc.record(
  {
    initiative: fc.constant('INIT-1'),
    title: fc.string({ minLength: 1, maxLength: 12 }),
    lane: fc.constantFrom('L1', 'L2'),
    status: fc.constantFrom('ready', 'in_progress', 'blocked', 'done'),
    dependencies: fc.subarray(WUS),
    code_paths: fc.constantFrom(['src/**'], []),
    claimed_at: fc.constant('2026-04-17T09:00:00Z'),
    worktree_path: fc.constantFrom('worktrees/a', '__proto__'),
  },
  { requiredKeys: ['status'] },
);

const rawEvent: fc.Arbitrary<(wu: string) => Raw> = fc.oneof(
  fc
    .constantFrom('wu.claimed', 'wu.checkpointed', 'wu.blocked', 'wu.unblocked', 'wu.released', 'wu.worker_returned', 'wu.stamped')
    .map((type) => (wu: string): Raw => {
      const data: Record<string, Record<string, unknown>> = {
        'wu.claimed': { wu_id: wu, session_id: null, mode: 'worktree', worktree_path: 'worktrees/a', branch: 'lane/a', takeover_from: null },
        'wu.checkpointed': { wu_id: wu, session_id: null, note: 'n', progress: null, next_steps: null },
        'wu.blocked': { wu_id: wu, reason: 'r' },
        'wu.unblocked': { wu_id: wu },
        'wu.released': { wu_id: wu, reason: 'r', previous_claimant: null },
        'wu.worker_returned': { wu_id: wu, session_id: null, note: null, source: 'manual' },
        'wu.stamped': { wu_id: wu, title: wu, completed_date: '2026-04-17', stamp_path: `.baton/stamps/${wu}.done` },
      };
      return { type, stream: `wu/${wu}`, data: data[type]! };
    }),
  yamlFields.map((fields) => (wu: string): Raw => ({
    type: 'observation.wu_yaml',
    stream: `wu/${wu}`,
    data: { wu_id: wu, path: `${wu}.yaml`, content_hash: '0'.repeat(64), fields, removed_fields: [] },
  })),
  fc
    .record({ present: fc.boolean(), path: fc.constantFrom('worktrees/a', '__proto__') })
    .map(({ present, path }) => (wu: string): Raw => ({ type: 'observation.worktree', stream: `wu/${wu}`, data: { wu_id: wu, path, present, branch: null } })),
  fc.boolean().map((dirty) => (): Raw => ({ type: 'observation.dirty_paths', stream: 'workspace/root', data: { paths: dirty ? ['src/a.ts'] : [] } })),
  fc.constant((wu: string): Raw => ({
    type: 'wu.defined',
    stream: `wu/${wu}`,
    data: { wu_id: wu, initiative: 'INIT-1', lane: 'L1', title: wu, dependencies: [] },
  })),
);

const histories = fc.array(fc.tuple(fc.constantFrom(...WUS), rawEvent), { minLength: 1, maxLength: 40 }).map((steps) => {
  const raws: Raw[] = [
    { type: 'initiative.created', stream: 'initiative/INIT-1', data: { initiative: 'INIT-1', title: 'One', slug: null, lanes: [] } },
    ...steps.map(([wu, make]) => make(wu)),
  ];
  return raws.map((r, i): BatonEvent =>
    decoded({
      v: 1,
      seq: i + 1,
      id: `e${i + 1}`,
      type: r.type,
      stream: r.stream,
      at: new Date(T0 + i * 7 * 60_000).toISOString(),
      actor: 'system',
      data: r.data,
      prev: '',
      hash: '',
    }),
  );
});

const fold = (events: readonly BatonEvent[], state: WorkUnitsState = initWorkUnits()): WorkUnitsState => events.reduce(applyWorkUnits, state);
/** What the snapshot runner does: serialize, write as JSON, read, parse, deserialize. */
const throughSnapshot = (state: WorkUnitsState): WorkUnitsState =>
  deserializeState(workUnitsStateProjection, JSON.parse(JSON.stringify(serializeState(workUnitsStateProjection, state))) as unknown);

describe('the work-unit snapshot form', () => {
  it('reads back as the state a JSON round trip gives, and folding on from it equals folding from scratch', () => {
    fc.assert(
      fc.property(histories, fc.nat(), (log, cut) => {
        const k = cut % (log.length + 1);
        const prefix = fold(log.slice(0, k));
        expect(JSON.stringify(throughSnapshot(fold(log.slice(0, k))))).toBe(JSON.stringify(prefix));
        const incremental = fold(log.slice(k), throughSnapshot(prefix));
        const scratch = fold(log);
        expect(JSON.stringify(incremental)).toBe(JSON.stringify(scratch));
        const views = (s: WorkUnitsState): string => {
          let status: unknown;
          try {
            status = statusDocument(computeInitiative(s, 'INIT-1', { config: DEFAULT_WORK_UNITS_CONFIG, now: NOW }), NOW);
          } catch (error) {
            // Random dependencies may form a cycle: then both sides must report the same one.
            status = (error as Error).message;
          }
          return JSON.stringify([status, listWus(s, DEFAULT_WORK_UNITS_CONFIG, NOW)]);
        };
        expect(views(incremental)).toBe(views(scratch));
      }),
      { numRuns: 150 },
    );
  });

  it('both forms, compact and plain, read back as the state a JSON round trip gives', () => {
    const through = (state: WorkUnitsState, form: 'plain-1' | 'shapes-marks-1'): WorkUnitsState =>
      decodeWorkUnitsState(JSON.parse(JSON.stringify(encodeWorkUnitsState(state, form))) as unknown);
    fc.assert(
      fc.property(histories, fc.nat(), (log, cut) => {
        const k = cut % (log.length + 1);
        const prefix = JSON.stringify(fold(log.slice(0, k)));
        const scratch = JSON.stringify(fold(log));
        for (const form of ['plain-1', 'shapes-marks-1'] as const) {
          expect(JSON.stringify(through(fold(log.slice(0, k)), form))).toBe(prefix);
          expect(JSON.stringify(fold(log.slice(k), through(fold(log.slice(0, k)), form)))).toBe(scratch);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('stores a long history of few WUs plain, and an imported repository compact', () => {
    const few = initWorkUnits();
    few.head_seq = 100_000;
    few.wus['WU-1'] = fold(
      [
        {
          v: 1 as const,
          seq: 1,
          id: 'e1',
          type: 'wu.defined',
          stream: 'wu/WU-1',
          at: new Date(T0).toISOString(),
          actor: 'system',
          data: { wu_id: 'WU-1', initiative: 'INIT-1', lane: 'L1', title: 'One', dependencies: [] },
          prev: '',
          hash: '',
        },
      ].map(decoded),
    ).wus['WU-1']!;
    expect(snapshotFormFor(few)).toBe('plain-1');
    expect(encodeWorkUnitsState(few).codec).toBe('plain-1');
    const imported = { ...few, head_seq: 3 };
    expect(snapshotFormFor(imported)).toBe('shapes-marks-1');
    expect(() => decodeWorkUnitsState({ codec: 'plain-1', state: { wus: null } })).toThrow();
  });

  it('keeps a key named __proto__ an own entry, and refuses what is not its form', () => {
    const log = fold([
      {
        v: 1,
        seq: 1,
        id: 'e1',
        type: 'observation.worktree',
        stream: 'wu/WU-1',
        at: new Date(T0).toISOString(),
        actor: 'system',
        data: { wu_id: 'WU-1', path: '__proto__', present: true, branch: null },
        prev: '',
        hash: '',
      },
    ]);
    const back = throughSnapshot(log);
    expect(Object.getPrototypeOf(back.wus['WU-1']!.worktrees)).toBe(Object.prototype);
    expect(Object.hasOwn(back.wus['WU-1']!.worktrees, '__proto__')).toBe(true);
    // An old plain-JSON snapshot (or anything else) is refused, so the runner rebuilds from the log.
    expect(() => deserializeState(workUnitsStateProjection, JSON.parse(JSON.stringify(log)))).toThrow();
    expect(() => deserializeState(workUnitsStateProjection, { codec: 'shapes-marks-1', shapes: [], marks: [], root: [7] })).toThrow();
  });

  it('is smaller than the log on an imported repository (a YAML observation, a stamp and a checkpoint per WU)', () => {
    const events: BatonEvent[] = [];
    const push = (type: string, stream: string, data: Record<string, unknown>): void => {
      events.push(
        decoded({
          v: 1,
          seq: events.length + 1,
          id: `01KB${String(events.length).padStart(22, '0')}`,
          type,
          stream,
          at: new Date(T0).toISOString(),
          actor: 'system',
          data,
          prev: 'f'.repeat(64),
          hash: 'e'.repeat(64),
        }),
      );
    };
    push('initiative.created', 'initiative/INIT-1', { initiative: 'INIT-1', title: 'One', slug: null, lanes: [] });
    for (let n = 1; n <= 300; n++) {
      const wu = `WU-${n}`;
      push('observation.wu_yaml', `wu/${wu}`, {
        wu_id: wu,
        path: `docs/operations/tasks/wu/${wu}.yaml`,
        content_hash: 'c'.repeat(64),
        removed_fields: [],
        fields: {
          initiative: 'INIT-1',
          title: `Work unit ${n}`,
          lane: 'Framework: Core',
          type: 'feature',
          priority: 'P2',
          status: n % 2 === 0 ? 'done' : 'in_progress',
          description: `Part ${n}.`,
          acceptance: ['It works'],
          code_paths: [`packages/p${n}/**`],
          dependencies: [],
        },
      });
      if (n % 2 === 0)
        push('observation.stamp_file', `wu/${wu}`, {
          wu_id: wu,
          path: `.lumenflow/stamps/${wu}.done`,
          present: true,
          valid: true,
          content_hash: 'a'.repeat(64),
        });
      else push('wu.checkpointed', `wu/${wu}`, { wu_id: wu, session_id: null, note: `half of part ${n}`, progress: null, next_steps: null });
    }
    const logBytes = events.reduce((sum, e) => sum + JSON.stringify(e).length + 1, 0);
    const state = fold(events);
    const plainBytes = JSON.stringify(state).length;
    const storedBytes = JSON.stringify(serializeState(workUnitsStateProjection, state)).length;
    expect(plainBytes).toBeGreaterThan(logBytes);
    expect(storedBytes).toBeLessThan(logBytes);
  });
});

/** What the runner does with the paged form: the head through JSON, the body as bytes read by range (counted). */
function throughPaged(state: WorkUnitsState): { state: WorkUnitsState; decoded: () => number } {
  const { head, body } = encodePaged(state);
  const bytes = bodyOf(Buffer.from(body, 'utf8'));
  let decoded = 0;
  const counting = { length: bytes.length, text: (start: number, end: number) => (decoded++, bytes.text(start, end)) };
  return { state: decodePaged(JSON.parse(JSON.stringify(head)) as unknown, counting), decoded: () => decoded };
}

/** Every answer a read gives from the fold, as text (a cycle's message stands for a plan). */
function answers(s: WorkUnitsState): string {
  const config = DEFAULT_WORK_UNITS_CONFIG;
  const guarded = (f: () => unknown): unknown => {
    try {
      return f();
    } catch (error) {
      return (error as Error).message;
    }
  };
  return JSON.stringify([
    guarded(() => statusDocument(computeInitiative(s, 'INIT-1', { config, now: NOW }), NOW)),
    guarded(() => initiativeSummaries(s, config, NOW)),
    listWus(s, config, NOW, { state: 'eligible' }),
    listWus(s, config, NOW, { state: 'done' }),
    listWus(s, config, NOW, { initiative: 'INIT-1', lane: 'L1' }),
    WUS.map((id) => showWu(s, id, config, NOW)),
    [...heldWorkUnits(s)],
    liveReservations(s, NOW),
    findCycle(s, WUS),
    Object.keys(s.wus),
    listWus(s, config, NOW),
  ]);
}

describe('the paged snapshot (a read decodes only the records it touches)', () => {
  it('answers every read as the fold it was written from, reads back as that state, and folds on as from scratch', () => {
    fc.assert(
      fc.property(histories, fc.nat(), (log, cut) => {
        const k = cut % (log.length + 1);
        const prefix = fold(log.slice(0, k));
        // The answers first, on a fresh read: a view must not depend on records decoded before it.
        expect(answers(throughPaged(prefix).state)).toBe(answers(fold(log.slice(0, k))));
        expect(JSON.stringify(throughPaged(prefix).state)).toBe(JSON.stringify(prefix));
        const incremental = fold(log.slice(k), throughPaged(prefix).state);
        const scratch = fold(log);
        expect(answers(incremental)).toBe(answers(scratch));
        expect(JSON.stringify(incremental)).toBe(JSON.stringify(scratch));
      }),
      { numRuns: 150 },
    );
  });

  it('decodes one record for wu show and none for the keys', () => {
    const read = throughPaged(
      fold(
        ['WU-2', 'WU-10', 'WU-1'].map((id, i) =>
          decoded({
            v: 1,
            seq: i + 1,
            id: `e${i + 1}`,
            type: 'wu.defined',
            stream: `wu/${id}`,
            at: new Date(T0).toISOString(),
            actor: 'system',
            data: { wu_id: id, initiative: 'INIT-1', lane: 'L1', title: id, dependencies: [] },
            prev: '',
            hash: '',
          }),
        ),
      ),
    );
    expect(Object.keys(read.state.wus)).toEqual(['WU-2', 'WU-10', 'WU-1']);
    expect([Object.hasOwn(read.state.wus, 'WU-1'), 'WU-9' in read.state.wus, read.decoded()]).toEqual([true, false, 0]);
    expect(showWu(read.state, 'WU-1', DEFAULT_WORK_UNITS_CONFIG, NOW)?.title).toBe('WU-1');
    expect(read.decoded()).toBe(1);
  });

  it("keeps a plain object's key order as keys come and go, array-index keys first", () => {
    const ids = Object.keys(Object.fromEntries(['WU-2', '10', 'WU-1', '2'].map((id) => [id, 0])));
    const lazy = lazyRecords(
      ids,
      ids.map(() => ({ defined: true, done: false, initiative: null, lane: null, deps: [] })),
      (i) => newWuRecord(ids[i]!),
    );
    const plain: Record<string, WuRecord> = Object.fromEntries(ids.map((id) => [id, newWuRecord(id)]));
    for (const target of [lazy, plain]) {
      target['5'] = newWuRecord('5');
      target['WU-0'] = newWuRecord('WU-0');
      delete target['10'];
    }
    expect(Object.keys(lazy)).toEqual(Object.keys(plain));
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(plain));
  });

  it('names the damaged record when its bytes are not what was written, and refuses a body of another length', () => {
    const state = fold(
      ['WU-1', 'WU-2'].map((id, i) =>
        decoded({
          v: 1,
          seq: i + 1,
          id: `e${i + 1}`,
          type: 'wu.defined',
          stream: `wu/${id}`,
          at: new Date(T0).toISOString(),
          actor: 'system',
          data: { wu_id: id, initiative: 'INIT-1', lane: 'L1', title: id, dependencies: [] },
          prev: '',
          hash: '',
        }),
      ),
    );
    const { head, body } = encodePaged(state);
    const damaged = Buffer.from(body.replace('"WU-1"', '"WU-X"'), 'utf8');
    const read = decodePaged(head, bodyOf(damaged));
    expect(read.wus['WU-2']!.def.title).toBe('WU-2');
    expect(() => read.wus['WU-1']).toThrow(/record of WU-1 is damaged/);
    expect(() => decodePaged(head, bodyOf(Buffer.from(`${body} `, 'utf8')))).toThrow(/body holds/);
  });
});
