import { describe, expect, it } from 'vitest';
import type { ProposedEvent } from '../../deciders/decision.js';
import { decideFlowAdopt, decideFlowFileEdit, decideFlowInit, decideFlowMerge, type InitFlow } from '../../deciders/flows.js';
import { decideFlowUpdate, type UpdateForm } from '../../deciders/flow-update.js';
import type { Refusal } from '../../deciders/refusal.js';
import { flowProjection, latestFlow } from '../../projections/flow/index.js';
import { given, specify, T0, versionOf, type Fact } from './given.js';

/** The flow commands (phase-gates.md §4–§6), decided without a store: given facts, when a command, then events or a refusal. */
const REGISTRY = 'flow-registry/workspace';
const flowsRead = (facts: readonly Fact[]) => ({ state: given(flowProjection, facts), versions: { [REGISTRY]: versionOf(facts, REGISTRY) } });
const asFacts = (events: readonly ProposedEvent[]): Fact[] => events.map((e) => ({ type: e.type, stream: e.stream, data: e.data }));
const init = (over: Partial<InitFlow> = {}): InitFlow => ({
  flowId: 'flow_aaaaaaaaaaaaaaaaaaaaaaaa',
  variant: 'team',
  mode: 'team',
  teamAvailable: true,
  task: 'Ship it',
  maxIterations: 10,
  useDeepDive: false,
  agentFlowRun: null,
  deepDive: null,
  now: T0,
  ...over,
});
const inits = specify({ decide: decideFlowInit, state: flowsRead });
const started = asFacts(inits.given([]).when(init()).decision()!.events);
const stream = 'flow/flow_aaaaaaaaaaaaaaaaaaaaaaaa';
/** The facts after each update, decided in turn on the facts before it. */
const walk = (facts: readonly Fact[], ...forms: UpdateForm[]): Fact[] =>
  forms.reduce<Fact[]>(
    (so, form) => {
      const group = form.kind === 'teammate' || form.kind === 'group_start';
      return [...so, ...asFacts(decideFlowUpdate({ update: { form, group }, now: T0 }, given(flowProjection, so)).events)];
    },
    [...facts],
  );
/** The team flow in its review_verification group, both teammates reported passed. */
const reported = walk(
  started,
  { kind: 'phase', phase: 'planning', result: 'passed' },
  { kind: 'phase', phase: 'implementation', result: 'passed' },
  { kind: 'phase', phase: 'review_verification', result: 'passed' },
  { kind: 'teammate', teammate: 'review', result: 'passed' },
  { kind: 'teammate', teammate: 'verification', result: 'passed' },
);
const merged = [...reported, ...asFacts(decideFlowMerge({ now: T0 }, flowsRead(reported)).events)];

describe('flow init', () => {
  it('starts the flow and registers it, guarded by the registry version', () => {
    const decision = inits.given([]).when(init()).decision()!;
    expect(decision.events.map((e) => [e.type, e.stream])).toEqual([
      ['flow.started', stream],
      ['flow_registry.registered', REGISTRY],
    ]);
    expect(decision.events[0]!.data).toMatchObject({
      flow_id: 'flow_aaaaaaaaaaaaaaaaaaaaaaaa',
      variant: 'team',
      mode: 'team',
      task: 'Ship it',
      max_iterations: 10,
    });
    expect(decision.expected).toEqual({ [stream]: 'no_stream', [REGISTRY]: 0 });
  });

  it('an active flow refuses a second with FLOW_ACTIVE, naming its phase', () => {
    inits
      .given(started)
      .when(init({ flowId: 'flow_bbbbbbbbbbbbbbbbbbbbbbbb' }))
      .thenRefuses('FLOW_ACTIVE', 'A flow is already active (phase: exploration). End it with baton flow update --complete or --abort REASON first.');
  });

  it('an Agent Flow run Baton has not recorded is refused with the way to take it over', () => {
    inits
      .given([])
      .when(init({ agentFlowRun: 'adopt it' }))
      .thenRefuses('FLOW_ACTIVE', 'An Agent Flow run is in progress: adopt it (or move the file away to start afresh).');
  });

  it('a deep dive Agent Flow completed is taken in the same batch when the log records none, and used', () => {
    const dd = 'deep_dive/deepdive_z';
    const events: ProposedEvent[] = [
      {
        type: 'deep_dive.initialized',
        stream: dd,
        data: { deep_dive_id: 'deepdive_z', scope: 'full', focus_path: null, agent_count: 5, refresh: false, backup_path: null },
      },
      {
        type: 'deep_dive.compiled',
        stream: dd,
        data: { deep_dive_id: 'deepdive_z', sections: {}, agents_spawned: 0, agents_completed: 0, mark_complete: true },
      },
    ];
    const decision = inits
      .given([])
      .when(init({ useDeepDive: true, deepDive: { events, scope: 'full' } }))
      .decision()!;
    expect(decision.events.map((e) => e.type)).toEqual(['deep_dive.initialized', 'deep_dive.compiled', 'flow.started', 'flow_registry.registered']);
    expect(decision.expected).toMatchObject({ [dd]: 'no_stream', [stream]: 'no_stream' });
    expect(decision.events[2]!.data['deep_dive']).toEqual({ available: true, using: true, scope: 'full', generated: T0, requested: true });
    expect(decision.outcome).toEqual({ deepDiveMissing: false, deepDiveAdopted: true });
    // One the log records wins: the file's is not taken.
    const recorded = inits
      .given(asFacts(events.slice(0, 1)))
      .when(init({ useDeepDive: true, deepDive: { events, scope: 'full' } }))
      .decision()!;
    expect(recorded.events.map((e) => e.type)).toEqual(['flow.started', 'flow_registry.registered']);
    expect(recorded.outcome).toEqual({ deepDiveMissing: true, deepDiveAdopted: false });
  });

  it('a deep dive asked for and not complete is reported missing, and not used', () => {
    const decision = inits
      .given([])
      .when(init({ useDeepDive: true }))
      .decision()!;
    expect(decision.outcome).toEqual({ deepDiveMissing: true, deepDiveAdopted: false });
    expect(decision.events[0]!.data['deep_dive']).toMatchObject({ available: false, using: false, requested: true });
  });
});

describe('flow update', () => {
  const updates = specify({ decide: decideFlowUpdate, state: (facts) => given(flowProjection, facts) });

  it('a message alone is logged in the current phase, by the agent given; a message a record carries is not logged twice', () => {
    updates
      .given(started)
      .when({ update: { form: { kind: 'message', agent: 'Loid', message: 'Completed step 3 of 5' }, group: false }, now: T0 })
      .then([
        {
          type: 'flow.message_logged',
          stream,
          data: { flow_id: 'flow_aaaaaaaaaaaaaaaaaaaaaaaa', phase: 'exploration', iteration: 1, agent: 'Loid', message: 'Completed step 3 of 5' },
        },
      ]);
    const recorded = updates
      .given(started)
      .when({ update: { form: { kind: 'gate', result: 'passed', message: 'Found 5 relevant files' }, group: false }, now: T0 })
      .decision()!;
    expect(recorded.events.map((e) => e.type)).toEqual(['flow.gate_recorded']);
    // A move that does not carry the message logs it in the phase the call starts from.
    const moved = walk(started, { kind: 'gate', result: 'passed' });
    const decision = updates
      .given(moved)
      .when({ update: { form: { kind: 'phase', phase: 'planning', message: 'On to the plan' }, group: false }, now: T0 })
      .decision()!;
    expect(decision.events.map((e) => [e.type, e.data['phase'] ?? e.data['to']])).toEqual([
      ['flow.message_logged', 'exploration'],
      ['flow.phase_changed', 'planning'],
    ]);
  });

  it('a call that changes nothing stays a no-op even with a message (the group start while it runs)', () => {
    const inGroup = walk(
      started,
      { kind: 'phase', phase: 'planning', result: 'passed' },
      { kind: 'phase', phase: 'implementation', result: 'passed' },
      { kind: 'phase', phase: 'review_verification', result: 'passed' },
    );
    updates
      .given(inGroup)
      .when({ update: { form: { kind: 'group_start', result: 'in_progress', message: 'Starting parallel review' }, group: true }, now: T0 })
      .thenNothing();
  });

  it('a message on a flow that has ended is FLOW_ENDED', () => {
    const aborted = walk(started, { kind: 'abort', reason: 'stop' });
    updates
      .given(aborted)
      .when({ update: { form: { kind: 'message', message: 'late' }, group: false }, now: T0 })
      .thenRefuses('FLOW_ENDED');
  });

  it('no flow is NO_FLOW', () => {
    updates
      .given([])
      .when({ update: { form: { kind: 'assert' }, group: false }, now: T0 })
      .thenRefuses('NO_FLOW');
  });

  it('a gate result is recorded through the machine on the flow stream, at the version read', () => {
    const decision = updates
      .given(started)
      .when({ update: { form: { kind: 'gate', result: 'passed' }, group: false }, now: T0 })
      .decision()!;
    expect(decision.events.map((e) => e.type)).toEqual(['flow.gate_recorded']);
    expect(decision.expected).toEqual({ [stream]: 1 });
  });

  it('a phase the flow does not have is INVALID_INPUT about the field `phase`, worded with its name', () => {
    const refusal = updates
      .given(started)
      .when({ update: { form: { kind: 'phase', phase: 'review' }, group: false }, now: T0 })
      .thenRefuses('INVALID_INPUT', "Invalid phase value: 'review'. Allowed: exploration, planning, implementation, review_verification, complete.");
    let fault: Refusal['input'];
    try {
      decideFlowUpdate({ update: { form: { kind: 'phase', phase: 'review' }, group: false }, now: T0 }, given(flowProjection, started));
    } catch (error) {
      fault = (error as Refusal).input;
    }
    expect([refusal.code, fault?.field]).toEqual(['INVALID_INPUT', 'phase']);
    expect(fault?.say('--phase')).toBe("Invalid --phase value: 'review'. Allowed: exploration, planning, implementation, review_verification, complete.");
  });

  it('aborting records the abort on the flow stream; completing a completed flow again appends nothing, aborting it is FLOW_ENDED', () => {
    updates
      .given(started)
      .when({ update: { form: { kind: 'abort', reason: 'stop' }, group: false }, now: T0 })
      .then([{ type: 'flow.aborted', stream, data: expect.objectContaining({ reason: 'stop' }) as never }]);
    const completed = walk(merged, { kind: 'complete', withGate: false });
    updates
      .given(completed)
      .when({ update: { form: { kind: 'complete', withGate: false }, group: false }, now: T0 })
      .thenNothing();
    updates
      .given(completed)
      .when({ update: { form: { kind: 'abort', reason: 'late' }, group: false }, now: T0 })
      .thenRefuses('FLOW_ENDED');
  });

  it('a move the machine does not allow is ILLEGAL_TRANSITION; a wrong iteration assertion too', () => {
    updates
      .given(started)
      .when({ update: { form: { kind: 'phase', phase: 'implementation' }, group: false }, now: T0 })
      .thenRefuses('ILLEGAL_TRANSITION');
    updates
      .given(started)
      .when({ update: { form: { kind: 'assert' }, group: false, iteration: 3 }, now: T0 })
      .thenRefuses('ILLEGAL_TRANSITION');
  });
});

describe('flow merge', () => {
  const merges = specify({ decide: decideFlowMerge, state: flowsRead });

  it('no flow is NO_FLOW; a sequential flow is NOT_TEAM_MODE', () => {
    merges.given([]).when({ now: T0 }).thenRefuses('NO_FLOW');
    const sequential = asFacts(
      inits
        .given([])
        .when(init({ variant: 'orchestrate', mode: 'sequential', teamAvailable: null }))
        .decision()!.events,
    );
    merges.given(sequential).when({ now: T0 }).thenRefuses('NOT_TEAM_MODE');
  });

  it('in the running group with both teammates reported, records the verdict on the flow stream at the version read', () => {
    const decision = merges.given(reported).when({ now: T0 }).decision()!;
    expect(decision.events.map((e) => [e.type, e.stream])).toContainEqual(['flow.group_merged', stream]);
    expect(decision.expected).toEqual({ [stream]: versionOf(reported, stream) });
    expect(decision.outcome).toMatchObject({ all_passed: true, failed_phases: [], recorded: true });
    // Once recorded, a second merge appends nothing and reports the recorded verdict.
    const again = merges.given(merged).when({ now: T0 }).decision()!;
    expect(again.events).toEqual([]);
    expect(again.outcome).toMatchObject({ all_passed: true, recorded: true });
  });

  it('outside the running group, appends nothing and reports the provisional verdict', () => {
    const decision = merges.given(started).when({ now: T0 }).decision()!;
    expect(decision.events).toEqual([]);
    expect(decision.outcome).toMatchObject({ recorded: false });
  });
});

describe('flow adopt', () => {
  const adopts = specify({ decide: decideFlowAdopt, state: flowsRead });
  const plan = { started: started[0]!.data as never, facts: [] };
  const deepDive: ProposedEvent[] = [{ type: 'deep_dive.initialized', stream: 'deep_dive/deepdive_x', data: {} }];

  it("starts the adopted flow with the run's deep dive first, each new stream guarded", () => {
    const decision = adopts.given([]).when({ flowId: 'flow_aaaaaaaaaaaaaaaaaaaaaaaa', variant: 'team', plan, deepDive }).decision()!;
    expect(decision.events.map((e) => e.type)).toEqual(['deep_dive.initialized', 'flow.started', 'flow_registry.registered']);
    expect(decision.expected).toEqual({ 'deep_dive/deepdive_x': 'no_stream', [stream]: 'no_stream', [REGISTRY]: 0 });
    expect(decision.outcome).toEqual({ deepDiveAdopted: true });
  });

  it("a deep dive Baton already records is kept: the run's is not adopted", () => {
    const recorded: Fact = {
      type: 'deep_dive.initialized',
      stream: 'deep_dive/deepdive_y',
      data: { deep_dive_id: 'deepdive_y', scope: 'full', focus_path: null, agent_count: 5, refresh: false, backup_path: null },
    };
    const decision = adopts.given([recorded]).when({ flowId: 'flow_aaaaaaaaaaaaaaaaaaaaaaaa', variant: 'team', plan, deepDive }).decision()!;
    expect(decision.events.map((e) => e.type)).toEqual(['flow.started', 'flow_registry.registered']);
    expect(decision.outcome).toEqual({ deepDiveAdopted: false });
  });

  it('an active flow refuses the adoption', () => {
    adopts.given(started).when({ flowId: 'flow_bbbbbbbbbbbbbbbbbbbbbbbb', variant: 'team', plan, deepDive: null }).thenRefuses('FLOW_ACTIVE');
  });
});

describe('an outside edit of the flow file', () => {
  it('a legal edit is its facts at the version read; an illegal one appends nothing', () => {
    const record = latestFlow(given(flowProjection, started))!;
    const facts = [{ type: 'flow.observed', data: { file: 'x' } }] as never;
    expect(decideFlowFileEdit({ kind: 'legal', facts }, record)).toEqual({
      events: [{ type: 'flow.observed', stream, data: { file: 'x' } }],
      expected: { [stream]: 1 },
      outcome: null,
    });
    expect(decideFlowFileEdit({ kind: 'illegal', key: 'current_phase', rule: 'no' }, record)).toBeNull();
  });
});
