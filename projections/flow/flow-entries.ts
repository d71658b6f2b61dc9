import { z } from 'zod';
import { AgentName, FlowEventType, type FlowFact } from '../../events/flow/flow-events.js';
import { GATE_STATUSES, GateStatus, PHASE_AGENT, PHASES, Phase } from '../../events/flow/vocabulary.js';

/**
 * The entries of a state file's Markdown log (§7.4), folded from flow facts. Each visit keeps its
 * own record, so a later iteration never rewrites what an earlier visit showed.
 */
const time = z.string();
const SubEntry = z.strictObject({ status: z.enum(GATE_STATUSES), at: time.nullable(), result: z.string().nullable() });

export const Entry = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('phase'),
    phase: z.enum(PHASES),
    iteration: z.number().int(),
    agent: AgentName,
    status: z.enum(GATE_STATUSES),
    at: time,
    message: z.string().nullable(),
    earlier: z.array(z.strictObject({ at: time, message: z.string().nullable() })),
  }),
  z.strictObject({
    kind: z.literal('group'),
    iteration: z.number().int(),
    started_at: time,
    merged: z.strictObject({ status: z.enum(GATE_STATUSES), completed_at: time, summary: z.string() }).nullable(),
    review: SubEntry,
    verification: SubEntry,
  }),
  z.strictObject({ kind: z.literal('iteration'), iteration: z.number().int(), failed_phase: z.enum(PHASES), at: time }),
  z.strictObject({ kind: z.literal('mode'), at: time, message: z.string().nullable() }),
  z.strictObject({ kind: z.literal('complete'), agent: AgentName, at: time, message: z.string().nullable() }),
  z.strictObject({ kind: z.literal('abort'), reason: z.string(), at: time, message: z.string().nullable() }),
  z.strictObject({
    kind: z.literal('message'),
    phase: z.enum(PHASES),
    iteration: z.number().int(),
    agent: AgentName.nullable(),
    at: time,
    message: z.string(),
  }),
]);
export type Entry = z.infer<typeof Entry>;
type PhaseEntry = Extract<Entry, { kind: 'phase' }>;
type GroupEntry = Extract<Entry, { kind: 'group' }>;

export function initialEntries(at: string): Entry[] {
  return [
    { kind: 'phase', phase: Phase.exploration, iteration: 1, agent: PHASE_AGENT.exploration, status: GateStatus.in_progress, at, message: null, earlier: [] },
  ];
}

function lastIndex(entries: readonly Entry[], test: (e: Entry) => boolean): number {
  for (let i = entries.length - 1; i >= 0; i--) if (test(entries[i]!)) return i;
  return -1;
}

function replaceAt(entries: Entry[], index: number, entry: Entry): Entry[] {
  const out = entries.slice();
  out[index] = entry;
  return out;
}

/** Fold one fact (recorded at `at`) into the entries. Pure. */
export function applyEntry(entries: Entry[], fact: FlowFact, at: string): Entry[] {
  switch (fact.type) {
    case FlowEventType.gate_recorded: {
      const d = fact.data;
      const i = lastIndex(entries, (e) => e.kind === 'phase' && e.phase === d.phase);
      if (i < 0) return entries;
      const prev = entries[i] as PhaseEntry;
      const earlier = prev.status === GateStatus.failed ? [...prev.earlier, { at: prev.at, message: prev.message }] : prev.earlier;
      return replaceAt(entries, i, { ...prev, agent: d.agent, status: d.status, at, message: d.message ?? null, earlier });
    }
    case FlowEventType.phase_changed: {
      const d = fact.data;
      if (d.to === Phase.review_verification) {
        const sub = { status: GateStatus.pending, at: null, result: null };
        return [...entries, { kind: 'group', iteration: d.iteration, started_at: at, merged: null, review: sub, verification: { ...sub } }];
      }
      return [
        ...entries,
        { kind: 'phase', phase: d.to, iteration: d.iteration, agent: PHASE_AGENT[d.to], status: GateStatus.in_progress, at, message: null, earlier: [] },
      ];
    }
    case FlowEventType.teammate_recorded: {
      const d = fact.data;
      const i = lastIndex(entries, (e) => e.kind === 'group');
      if (i < 0) return entries;
      const prev = entries[i] as GroupEntry;
      return replaceAt(entries, i, { ...prev, [d.teammate]: { status: d.status, at, result: d.result ?? prev[d.teammate].result } });
    }
    case FlowEventType.group_merged: {
      const i = lastIndex(entries, (e) => e.kind === 'group');
      if (i < 0) return entries;
      const prev = entries[i] as GroupEntry;
      return replaceAt(entries, i, {
        ...prev,
        merged: { status: fact.data.all_passed ? GateStatus.passed : GateStatus.failed, completed_at: at, summary: fact.data.summary },
      });
    }
    case FlowEventType.iteration_started:
      return [...entries, { kind: 'iteration', iteration: fact.data.iteration, failed_phase: fact.data.failed_phase, at }];
    case FlowEventType.mode_changed:
      return [...entries, { kind: 'mode', at, message: fact.data.message ?? null }];
    case FlowEventType.completed:
      return [...entries, { kind: 'complete', agent: fact.data.agent, at, message: fact.data.message ?? null }];
    case FlowEventType.aborted:
      return [...entries, { kind: 'abort', reason: fact.data.reason, at, message: fact.data.message ?? null }];
    case FlowEventType.message_logged: {
      const d = fact.data;
      return [...entries, { kind: 'message', phase: d.phase, iteration: d.iteration, agent: d.agent ?? null, at, message: d.message }];
    }
    case FlowEventType.group_started:
    case FlowEventType.fields_set:
    case FlowEventType.observed:
    case FlowEventType.extra_keys_set:
      return entries;
  }
}
