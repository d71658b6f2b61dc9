import { z } from 'zod';
import { DeepDiveEventType } from '../../events/flow/deep-dive-events.js';
import type { AcceptedEvent, BatonEvent } from '../../events/baton-event.js';
import { FlowEventType, FlowFact } from '../../events/flow/flow-events.js';
import { rejectionText } from '../rejection-text.js';
import { Mode, Variant } from '../../events/flow/vocabulary.js';
import { applyFact, FlowContext, isOutsideMachine, occurredAtOf, startedAt, startedContext, withoutOccurredAt } from '../../machines/flow-context.js';
import type { FlowMachineEvent } from '../../machines/flow-events.js';
import { step } from '../../machines/flow-snapshot.js';
import { compiledRecord, DeepDiveRecord, initializedRecord } from './deep-dive-state.js';
import { applyEntry, Entry, initialEntries } from './flow-entries.js';

/**
 * The fold behind every flow view: the most recent flow of each variant and the latest deep dive.
 * Each stored flow event is applied through the flow machine: the event is turned back into the
 * machine event that produced it, the machine must accept it and emit exactly the stored fact, and
 * the facts it emits after that (the automatic consequences: a new iteration, the move back, an
 * abort at max iterations, a group start) must be the events that follow in the log. Anything else
 * is an integrity finding and is not applied.
 */
export const FlowRecord = z.strictObject({
  stream: z.string(),
  version: z.number().int(),
  start_mode: z.enum([Mode.sequential, Mode.team]),
  context: FlowContext,
  entries: z.array(Entry),
  /** Consequences the machine emitted that the log has not shown yet. */
  expected: z.array(FlowFact),
});
export type FlowRecord = z.infer<typeof FlowRecord>;

export const Finding = z.strictObject({ seq: z.number().int(), type: z.string(), stream: z.string(), reason: z.string() });
export type Finding = z.infer<typeof Finding>;

export const FlowState = z.strictObject({
  latest: z.enum([Variant.orchestrate, Variant.team]).nullable(),
  flows: z.strictObject({ orchestrate: FlowRecord.nullable(), team: FlowRecord.nullable() }),
  deep_dive: DeepDiveRecord.nullable(),
  findings: z.array(Finding),
});
export type FlowState = z.infer<typeof FlowState>;

export function initFlowState(): FlowState {
  return { latest: null, flows: { orchestrate: null, team: null }, deep_dive: null, findings: [] };
}

export function latestFlow(state: FlowState): FlowRecord | null {
  return state.latest === null ? null : state.flows[state.latest];
}

/** The flow whose stream this is, when it is the most recent of its variant. */
function flowOf(state: FlowState, stream: string): FlowRecord | null {
  for (const record of [state.flows.orchestrate, state.flows.team]) if (record?.stream === stream) return record;
  return null;
}

/** Order-insensitive equality of JSON values (stored data may order keys differently). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The machine event a stored fact records, for facts a command decides (not consequences). */
export function machineEventOf(fact: FlowFact, at: string): FlowMachineEvent | null {
  const opt = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> =>
    value === undefined ? {} : ({ [key]: value } as Record<K, string>);
  switch (fact.type) {
    case FlowEventType.gate_recorded:
      return { type: 'RECORD_GATE', status: fact.data.status, agent: fact.data.agent, ...opt('message', fact.data.message), at };
    case FlowEventType.phase_changed:
      return { type: 'ADVANCE', to: fact.data.to, at };
    case FlowEventType.teammate_recorded:
      return {
        type: 'RECORD_TEAMMATE',
        teammate: fact.data.teammate,
        status: fact.data.status,
        agent: fact.data.agent,
        ...opt('result', fact.data.result),
        at,
      };
    case FlowEventType.group_merged:
      return { type: 'MERGE', at };
    case FlowEventType.completed:
      return { type: 'COMPLETE', agent: fact.data.agent, ...opt('message', fact.data.message), at };
    case FlowEventType.aborted:
      return { type: 'ABORT', reason: fact.data.reason, ...opt('message', fact.data.message), at };
    case FlowEventType.mode_changed:
      return { type: 'FALLBACK', ...opt('message', fact.data.message), at };
    case FlowEventType.fields_set:
      return { type: 'SET_FIELDS', fields: fact.data.fields, at };
    case FlowEventType.observed:
    case FlowEventType.message_logged:
    case FlowEventType.extra_keys_set:
      return null;
    case FlowEventType.iteration_started:
    case FlowEventType.group_started:
      return null;
  }
}

function withFlow(state: FlowState, record: FlowRecord): FlowState {
  return { ...state, flows: { ...state.flows, [record.context.variant]: record } };
}

function finding(state: FlowState, event: BatonEvent, reason: string): FlowState {
  return { ...state, findings: [...state.findings, { seq: event.seq, type: event.type, stream: event.stream, reason }] };
}

/**
 * Apply one stored flow fact to its flow through the machine, at `at` (its `occurred_at` when it
 * has one). The machine emits facts without an original time, so they are compared without it.
 */
export function applyFlowFact(record: FlowRecord, stored: FlowFact, at: string): { record: FlowRecord } | { error: string } {
  const counted = { ...record, version: record.version + 1 };
  const fact = withoutOccurredAt(stored);
  const next = record.expected[0];
  if (next !== undefined) {
    if (!sameJson(next, fact)) return { error: `expected ${next.type} (an automatic consequence of the event before it), found ${fact.type}` };
    return { record: { ...counted, expected: record.expected.slice(1) } };
  }
  // An observation marks where an outside edit was read; the facts it amounts to follow it. It
  // changes nothing itself, and only an active flow can take one, like the facts outside the machine.
  if (fact.type === FlowEventType.observed || isOutsideMachine(fact)) {
    if (record.context.status !== 'active') return { error: `${fact.type} on a flow that has ended (${record.context.status})` };
    return { record: { ...counted, context: applyFact(record.context, fact, at), entries: applyEntry(record.entries, fact, at) } };
  }
  const event = machineEventOf(fact, at);
  if (event === null) return { error: `${fact.type} is only ever a consequence of another event` };
  const result = step(record.context, event);
  if (!result.accepted) return { error: `the flow machine refuses ${event.type} in phase ${record.context.current_phase} (${record.context.status})` };
  const [first, ...rest] = result.facts;
  if (first === undefined || !sameJson(first, fact))
    return { error: `the flow machine would record ${first ? JSON.stringify(first.data) : 'nothing'} for this ${event.type}` };
  let entries = record.entries;
  for (const f of result.facts) entries = applyEntry(entries, f, at);
  return { record: { ...counted, context: { ...result.context, outbox: [] }, entries, expected: rest } };
}

type FlowFactEvent = Extract<AcceptedEvent, { type: FlowFact['type'] }>;
const FLOW_FACT_TYPES: ReadonlySet<string> = new Set(FlowFact.options.map((option) => option.shape.type.value));

function isFlowFact(event: AcceptedEvent): event is FlowFactEvent {
  return FLOW_FACT_TYPES.has(event.type);
}

/** The fact an event records, as the machine emits it (type and data, no envelope). */
function factOf(event: FlowFactEvent): FlowFact {
  // TypeScript does not correlate `type` and `data` across a union's members once destructured.
  return { type: event.type, data: event.data } as FlowFact;
}

export function applyFlowEvent(state: FlowState, event: BatonEvent): FlowState {
  if (event.rejected !== undefined) {
    const folded = event.type.startsWith('flow.') || event.type === DeepDiveEventType.initialized || event.type === DeepDiveEventType.compiled;
    return folded ? finding(state, event, rejectionText(event)) : state;
  }
  switch (event.type) {
    case FlowEventType.started: {
      const record: FlowRecord = {
        stream: event.stream,
        version: 1,
        start_mode: event.data.mode,
        context: startedContext(event.data, event.at),
        entries: initialEntries(startedAt(event.data, event.at)),
        expected: [],
      };
      return { ...withFlow(state, record), latest: event.data.variant };
    }
    case DeepDiveEventType.initialized:
      return { ...state, deep_dive: initializedRecord(event.data, event.stream, event.at) };
    case DeepDiveEventType.compiled:
      if (state.deep_dive === null || state.deep_dive.stream !== event.stream)
        return finding(state, event, 'a compile of a deep dive that is not the latest one');
      return { ...state, deep_dive: compiledRecord(state.deep_dive, event.data, event.at) };
  }
  if (!isFlowFact(event)) return state;
  const record = flowOf(state, event.stream);
  if (record === null) return finding(state, event, 'an event for a flow that is not the most recent of its variant');
  const fact = factOf(event);
  const applied = applyFlowFact(record, fact, occurredAtOf(fact) ?? event.at);
  if ('error' in applied) {
    // Not applied; the stream still counts the event, so expected versions stay right.
    return finding(withFlow(state, { ...record, version: record.version + 1, expected: [] }), event, applied.error);
  }
  return withFlow(state, applied.record);
}
