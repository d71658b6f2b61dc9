import { z } from 'zod';
import type { DeepDiveCompiledData, DeepDiveInitializedData } from '../../events/flow/deep-dive-events.js';
import { DEEP_DIVE_SCOPES, DEEP_DIVE_SECTIONS, type DeepDiveSection } from '../../events/flow/vocabulary.js';

/** The latest deep dive recorded in the log (§8), folded from its events. */
export const DeepDivePhase = { initializing: 'initializing', compilation: 'compilation', complete: 'complete' } as const;
export type DeepDivePhase = (typeof DeepDivePhase)[keyof typeof DeepDivePhase];
const PHASE_RANK: Record<DeepDivePhase, number> = { initializing: 0, compilation: 1, complete: 2 };

export const DeepDiveRecord = z.strictObject({
  deep_dive_id: z.string(),
  stream: z.string(),
  version: z.number().int(),
  generated: z.string(),
  scope: z.enum(DEEP_DIVE_SCOPES),
  focus_path: z.string().nullable(),
  agent_count: z.number().int(),
  phase: z.enum([DeepDivePhase.initializing, DeepDivePhase.compilation, DeepDivePhase.complete]),
  agents_spawned: z.number().int(),
  agents_completed: z.number().int(),
  sections: z.partialRecord(z.enum(DEEP_DIVE_SECTIONS), z.string()),
  /** Sections Baton does not own, carried through compile. */
  extra_sections: z.array(z.strictObject({ title: z.string(), text: z.string() })),
  log: z.array(z.strictObject({ at: z.string(), text: z.string() })),
});
export type DeepDiveRecord = z.infer<typeof DeepDiveRecord>;

export function initializedRecord(data: DeepDiveInitializedData, stream: string, at: string): DeepDiveRecord {
  return {
    deep_dive_id: data.deep_dive_id,
    stream,
    version: 1,
    generated: at,
    scope: data.scope,
    focus_path: data.focus_path,
    agent_count: data.agent_count,
    phase: DeepDivePhase.initializing,
    agents_spawned: 0,
    agents_completed: 0,
    sections: {},
    extra_sections: [],
    log: [{ at, text: `Initialized (scope: ${data.scope}, agents: ${data.agent_count})` }],
  };
}

/** K2/K4: only the sections given change; "" resets one; phase never moves backwards. */
export function compiledRecord(record: DeepDiveRecord, data: DeepDiveCompiledData, at: string): DeepDiveRecord {
  const sections = { ...record.sections };
  const given: DeepDiveSection[] = [];
  for (const name of DEEP_DIVE_SECTIONS) {
    const text = data.sections[name];
    if (text === undefined) continue;
    given.push(name);
    if (text === '') delete sections[name];
    else sections[name] = text;
  }
  let extra = record.extra_sections;
  for (const section of data.extra_sections ?? []) {
    const rest = extra.filter((e) => e.title !== section.title);
    const at = extra.findIndex((e) => e.title === section.title);
    if (section.text === '') extra = rest;
    else if (at < 0) extra = [...extra, { ...section }];
    else extra = extra.map((e, i) => (i === at ? { ...section } : e));
  }
  const target = data.mark_complete ? DeepDivePhase.complete : DeepDivePhase.compilation;
  const phase = PHASE_RANK[target] > PHASE_RANK[record.phase] ? target : record.phase;
  const names = [...given, ...(data.extra_sections ?? []).map((e) => JSON.stringify(e.title))];
  const log = [...record.log, { at, text: `Compiled: ${names.length > 0 ? names.join(', ') : 'no sections'}` }];
  if (data.mark_complete) log.push({ at, text: 'Marked complete' });
  return {
    ...record,
    version: record.version + 1,
    generated: at,
    phase,
    agents_spawned: data.agents_spawned ?? record.agents_spawned,
    agents_completed: data.agents_completed ?? record.agents_completed,
    sections,
    extra_sections: extra,
    log,
  };
}

export function phaseStatuses(phase: DeepDivePhase): { parallel_exploration: string; synthesis: string; compilation: string } {
  if (phase === DeepDivePhase.initializing) return { parallel_exploration: 'pending', synthesis: 'pending', compilation: 'pending' };
  if (phase === DeepDivePhase.compilation) return { parallel_exploration: 'complete', synthesis: 'complete', compilation: 'in_progress' };
  return { parallel_exploration: 'complete', synthesis: 'complete', compilation: 'complete' };
}
