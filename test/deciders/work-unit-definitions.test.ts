import { describe, expect, it } from 'vitest';
import { decideCreateInitiative, decideDefineWu, decideDone, decideUpdateInitiative, DefinitionResult } from '../../deciders/work-unit-definitions.js';
import { workUnitsStateProjection } from '../../projections/work-units/fold.js';
import { given, refusalOf, versionOf, type Fact } from './given.js';

/** Initiatives, WU definitions and `wu done` (work-units.md §2, §3.1, §12), decided without a store. */
const initiative: Fact = {
  type: 'initiative.created',
  stream: 'initiative/INIT-1',
  data: { initiative: 'INIT-1', title: 'Checkout', slug: 'checkout', lanes: ['Core', 'Docs'] },
};
const defined: Fact = {
  type: 'wu.defined',
  stream: 'wu/WU-1',
  data: { wu_id: 'WU-1', initiative: 'INIT-1', title: 'One', lane: 'Core', dependencies: [], code_paths: [] },
};
const fold = (facts: Fact[]) => given(workUnitsStateProjection, facts);
const wuState = (facts: Fact[]) => ({ fold: fold(facts), version: versionOf(facts, 'wu/WU-1') });

describe('initiative create', () => {
  it('creates on a new stream; the same definition again appends nothing; another is ALREADY_EXISTS', () => {
    const wanted = { initiative: 'INIT-1', title: 'Checkout', slug: 'checkout', lanes: ['Core', 'Docs'] };
    expect(decideCreateInitiative(wanted, fold([])).expected).toEqual({ 'initiative/INIT-1': 'no_stream' });
    expect(decideCreateInitiative(wanted, fold([initiative]))).toEqual({ events: [], expected: {}, outcome: { created: false } });
    expect(refusalOf(() => decideCreateInitiative({ ...wanted, title: 'Other' }, fold([initiative]))).code).toBe('ALREADY_EXISTS');
  });

  it('refuses a slug another initiative holds, naming the slug field', () => {
    const refusal = refusalOf(() => decideCreateInitiative({ initiative: 'INIT-2', title: 'Two', slug: 'checkout', lanes: [] }, fold([initiative])));
    expect(refusal).toEqual({ code: 'ALREADY_EXISTS', message: 'slug: checkout is already the slug of INIT-1' });
  });
});

describe('wu create', () => {
  it('defines a WU with the §3.1 defaults, through the slug of its initiative', () => {
    const decision = decideDefineWu(
      { wuId: 'WU-2', initiative: 'checkout', given: { initiative: 'checkout', lane: 'Docs' } },
      { fold: fold([initiative]), version: 0 },
    );
    expect(decision.events[0]!.data).toEqual({
      wu_id: 'WU-2',
      initiative: 'checkout',
      title: 'WU-2',
      description: '',
      acceptance: [],
      lane: 'Docs',
      type: 'feature',
      priority: 'P2',
      dependencies: [],
      code_paths: [],
    });
    expect(decision.expected).toEqual({ 'wu/WU-2': 'no_stream' });
  });

  it('a later create appends only the fields that differ, or nothing', () => {
    const state = wuState([initiative, defined]);
    const update = decideDefineWu({ wuId: 'WU-1', initiative: 'INIT-1', given: { initiative: 'INIT-1', lane: 'Core', title: 'Renamed' } }, state);
    expect(update.events).toEqual([{ type: 'wu.updated', stream: 'wu/WU-1', data: { wu_id: 'WU-1', changed: { title: 'Renamed' } } }]);
    expect(update.outcome).toEqual({ result: DefinitionResult.updated, changed_fields: ['title'] });
    expect(decideDefineWu({ wuId: 'WU-1', initiative: 'INIT-1', given: { initiative: 'INIT-1', lane: 'Core', title: 'One' } }, state).outcome.result).toBe(
      DefinitionResult.unchanged,
    );
  });

  it('refuses an unknown initiative (UNKNOWN_ID) and a lane the initiative does not have (the lane field)', () => {
    expect(
      refusalOf(() =>
        decideDefineWu({ wuId: 'WU-2', initiative: 'INIT-9', given: { initiative: 'INIT-9', lane: 'Core' } }, { fold: fold([initiative]), version: 0 }),
      ).code,
    ).toBe('UNKNOWN_ID');
    const lane = refusalOf(() =>
      decideDefineWu({ wuId: 'WU-2', initiative: 'INIT-1', given: { initiative: 'INIT-1', lane: 'Ops' } }, { fold: fold([initiative]), version: 0 }),
    );
    expect(lane).toEqual({ code: 'INVALID_INPUT', message: 'lane: lane "Ops" is not one of INIT-1\'s lanes (Core, Docs)' });
  });
});

describe('wu done', () => {
  const claimed: Fact = {
    type: 'wu.claimed',
    stream: 'wu/WU-1',
    data: { wu_id: 'WU-1', session_id: null, mode: 'worktree', worktree_path: 'w', branch: 'b', takeover_from: null },
  };
  const done = {
    wuId: 'WU-1',
    today: '2026-06-01',
    stampFileValid: false,
    stampPath: '.baton/stamps/WU-1.done',
    session: null,
    actor: 'system',
    now: '2026-06-01T12:00:00.000Z',
  };

  it('stamps a claimed WU once; a stamped WU appends nothing', () => {
    const decision = decideDone(done, wuState([initiative, defined, claimed]));
    expect(decision.events).toEqual([
      { type: 'wu.stamped', stream: 'wu/WU-1', data: { wu_id: 'WU-1', title: 'One', completed_date: '2026-06-01', stamp_path: '.baton/stamps/WU-1.done' } },
    ]);
    const stamped: Fact = { type: 'wu.stamped', stream: 'wu/WU-1', data: decision.events[0]!.data };
    expect(decideDone(done, wuState([initiative, defined, claimed, stamped])).events).toEqual([]);
  });

  it('refuses an unclaimed WU without a valid stamp file, and accepts it with one', () => {
    expect(refusalOf(() => decideDone(done, wuState([initiative, defined]))).code).toBe('ILLEGAL_TRANSITION');
    expect(decideDone({ ...done, stampFileValid: true }, wuState([initiative, defined])).outcome.already_exists).toBe(true);
  });
});

describe('initiative update', () => {
  const state = (facts: Fact[]) => ({ fold: fold(facts), version: versionOf(facts, 'initiative/INIT-1') });

  it('appends only the fields that differ, at the version of the initiative stream, or nothing', () => {
    const decision = decideUpdateInitiative({ initiative: 'INIT-1', given: { title: 'Checkout', status: 'in_progress' } }, state([initiative]));
    expect(decision.events).toEqual([
      { type: 'initiative.updated', stream: 'initiative/INIT-1', data: { initiative: 'INIT-1', changed: { status: 'in_progress' } } },
    ]);
    expect(decision.expected).toEqual({ 'initiative/INIT-1': 1 });
    expect(decideUpdateInitiative({ initiative: 'INIT-1', given: { title: 'Checkout' } }, state([initiative])).events).toEqual([]);
  });

  it('refuses an unknown initiative and a slug another one holds', () => {
    expect(refusalOf(() => decideUpdateInitiative({ initiative: 'INIT-9', given: { title: 'x' } }, state([initiative]))).code).toBe('UNKNOWN_ID');
    const other: Fact = { type: 'initiative.created', stream: 'initiative/INIT-2', data: { initiative: 'INIT-2', title: 'Two', slug: 'two', lanes: [] } };
    expect(refusalOf(() => decideUpdateInitiative({ initiative: 'INIT-1', given: { slug: 'two' } }, state([initiative, other])))).toEqual({
      code: 'ALREADY_EXISTS',
      message: 'slug: two is already the slug of INIT-2',
    });
  });
});
