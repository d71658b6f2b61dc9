import type { z } from 'zod';
import { parse } from 'yaml';
import { FlowDriver } from './flow-driver.js';
import { FlowEventType, FlowFields, FlowFieldsPatch, type FlowFact } from '../../events/flow/flow-events.js';
import {
  AGENTS,
  COMPLETE,
  FlowStatus,
  GATE_RESULTS,
  GateStatus,
  type GateResult,
  PHASE_AGENT,
  PHASES,
  Phase,
  TEAMMATE_AGENT,
  TEAMMATES,
  type Teammate,
} from '../../events/flow/vocabulary.js';
import { mergeVerdict, type FlowContext } from '../../machines/flow-context.js';
import type { FlowMachineEvent } from '../../machines/flow-events.js';
import { withExtraKeys } from '../../projections/flow/extra-keys.js';
import { flowFrontmatter } from '../../projections/flow/render-flow-file.js';
import { EntryKind, type AppendedEntry } from './appended-log.js';
import { extraKeysOf, knownPart } from './extra-keys.js';
import { ABORT_MESSAGE, abortReasonOf } from './update-input.js';

/**
 * What an outside edit of a flow state file amounts to (principle 2: what Baton sees outside the
 * log enters as a fact). The file's frontmatter is compared with the rendering of the flow; the
 * keys that differ are turned into the machine events Agent Flow's update script stands for (a
 * `--set-*` field, a gate result, a teammate result, a merge verdict, a phase move, the end of the
 * flow), and the machine decides them like any `flow update`. Keys Baton does not know are kept as
 * the file has them (`flow.extra_keys_set`); entries appended to the log say who made a change and
 * why (a gate's agent and message, the completing agent, a merge's verdict), and each message no
 * fact carries is logged (`flow.message_logged`). The edit is legal when the machine accepts every
 * step and the flow it reaches shows every edited key as the file has it; otherwise the first key
 * that does not follow is named with the rule it breaks.
 */
export type ObservedEdit =
  { kind: 'unchanged' } | { kind: 'legal'; facts: FlowFact[]; keys: string[]; context: FlowContext } | { kind: 'illegal'; key: string; rule: string };

/** Keys Baton derives from the time and author of a record; an edit of them alone is not a fact. */
const DERIVED = [
  /^gates\.[a-z_]+\.timestamp$/,
  /^gates\.[a-z_]+\.agent$/,
  /^parallel_groups\.review_verification\.(started_at|completed_at)$/,
  /^parallel_groups\.review_verification\.[a-z]+\.(timestamp|agent)$/,
];
const FIELD_KEYS = ['codex_divergence_rounds', 'task_complexity', 'report_requested', 'intent', 'graph', 'personal_kb', 'codex', 'agentsview'] as const;

/** The frontmatter checked by `schema`, or the first bad key and its rule (`(frontmatter)` for the file as a whole). */
export function readFrontmatterAs<T>(text: string, schema: z.ZodType<T>): { data: T } | { key: string; rule: string } {
  const read = readFrontmatter(text);
  if ('error' in read) return { key: '(frontmatter)', rule: read.error };
  const parsed = schema.safeParse(read.front);
  if (parsed.success) return { data: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { key: issue.path.join('.') || '(frontmatter)', rule: issue.message };
}

/** `---`, YAML, `---`: the frontmatter object, or the reason it cannot be read. */
export function readFrontmatter(text: string): { front: Record<string, unknown> } | { error: string } {
  if (!text.startsWith('---\n')) return { error: 'the file does not start with a --- line' };
  const end = text.indexOf('\n---\n', 3);
  const endAtEof = text.endsWith('\n---') ? text.length - 4 : -1;
  const close = end >= 0 ? end : endAtEof;
  if (close < 0) return { error: 'the frontmatter has no closing --- line' };
  try {
    const front: unknown = parse(text.slice(4, close + 1));
    if (front === null || typeof front !== 'object' || Array.isArray(front)) return { error: 'the frontmatter is not a YAML mapping' };
    return { front: front as Record<string, unknown> };
  } catch (error) {
    return { error: `the frontmatter does not parse as YAML (${(error as Error).message.split('\n')[0]})` };
  }
}

/** Leaf paths whose values differ; a key the file lacks is not an edit (older scripts drop keys). */
function changedPaths(file: unknown, rendered: unknown, prefix: string, out: string[]): void {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(file) && isObj(rendered)) {
    for (const key of Object.keys(file)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (!(key in rendered)) out.push(path);
      else changedPaths(file[key], rendered[key], path, out);
    }
    return;
  }
  if (JSON.stringify(file) !== JSON.stringify(rendered)) out.push(prefix);
}

function get(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const part of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

function agentOf(value: unknown, fallback: string): string {
  if (typeof value !== 'string' || value.trim() === '') return fallback;
  return AGENTS.find((a) => a.toLowerCase() === value.toLowerCase()) ?? value;
}

function gateResult(value: unknown): GateResult | null {
  return GATE_RESULTS.find((r) => r === value) ?? null;
}

const optText = (key: 'message' | 'result', value: unknown): Record<string, string> => (typeof value === 'string' && value !== '' ? { [key]: value } : {});

type Refusal = { key: string; rule: string };

/** One edit being read: the file's frontmatter, Baton's rendering, the flow stepped so far, the log entries not yet used. */
interface Reading {
  front: Record<string, unknown>;
  /** Baton's rendering without the kept keys. */
  base: Record<string, unknown>;
  flow: FlowDriver;
  at: string;
  /** Edited keys, derived ones (timestamps, agents) included. */
  all: readonly string[];
  entries: AppendedEntry[];
}

const touched = (r: Reading, prefix: string): boolean => r.all.some((k) => k === prefix || k.startsWith(`${prefix}.`));
const send = (r: Reading, event: FlowMachineEvent): string | null => r.flow.send(event);

/** The first unused appended entry that fits, taken (an entry says who and why once). */
function take(r: Reading, fits: (e: AppendedEntry) => boolean, last = false): AppendedEntry | undefined {
  const i = last ? r.entries.findLastIndex(fits) : r.entries.findIndex(fits);
  return i < 0 ? undefined : r.entries.splice(i, 1)[0];
}

/** 1. Agent Flow's v1.5+ fields (--set-*): the known part of each block, where it differs. */
function observeFields(r: Reading): Refusal | null {
  const patch: Record<string, unknown> = {};
  for (const key of FIELD_KEYS) {
    if (!touched(r, key)) continue;
    const shape = FlowFields.shape[key];
    const value = 'shape' in shape ? { ...(r.base[key] as object), ...(knownPart(r.front[key], Object.keys(shape.shape)) as object) } : r.front[key];
    if (JSON.stringify(value) !== JSON.stringify(r.base[key])) patch[key] = value;
  }
  if (Object.keys(patch).length === 0) return null;
  const parsed = FlowFieldsPatch.safeParse(patch);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { key: issue.path.join('.') || Object.keys(patch)[0]!, rule: issue.message };
  }
  const refused = send(r, { type: 'SET_FIELDS', fields: parsed.data, at: r.at });
  return refused ? { key: Object.keys(patch)[0]!, rule: refused } : null;
}

/** 2. A gate result on the current phase: who and why from the edited gate, else from the log entry that reports it. */
function observeGate(r: Reading, phase: Phase): Refusal | null {
  const key = `gates.${phase}.status`;
  if (!touched(r, key)) return null;
  const status = gateResult(get(r.front, key));
  if (status === null) return { key, rule: `a gate result is one of ${GATE_RESULTS.join(', ')}` };
  const gate = get(r.front, `gates.${phase}`);
  const entry = take(r, (e) => e.kind === EntryKind.phase && (e.gate === undefined || e.gate === status));
  const agent = touched(r, `gates.${phase}.agent`) ? get(gate, 'agent') : (entry?.agent ?? get(gate, 'agent'));
  // A message from an earlier record is not kept (G4): only an edited one, or the entry's.
  const message = touched(r, `gates.${phase}.message`) ? get(gate, 'message') : entry?.message;
  const refused = send(r, { type: 'RECORD_GATE', status, agent: agentOf(agent, PHASE_AGENT[phase]), ...optText('message', message), at: r.at });
  return refused ? { key, rule: refused } : null;
}

/** 3. The teammates' results and the group's verdict an edit of a team file records. */
function observeTeam(r: Reading): Refusal | null {
  for (const teammate of TEAMMATES as readonly Teammate[]) {
    const key = `parallel_groups.review_verification.${teammate}.status`;
    if (!touched(r, key)) continue;
    const sub = get(r.front, `parallel_groups.review_verification.${teammate}`);
    const status = gateResult(get(sub, 'status'));
    if (status === null) return { key, rule: `a teammate result is one of ${GATE_RESULTS.join(', ')}` };
    const entry = take(r, (e) => e.kind === EntryKind.teammate && e.teammate === teammate);
    const agent = touched(r, `parallel_groups.review_verification.${teammate}.agent`) ? get(sub, 'agent') : (entry?.agent ?? get(sub, 'agent'));
    const result = get(sub, 'result') || entry?.message;
    const refused = send(r, {
      type: 'RECORD_TEAMMATE',
      teammate,
      status,
      agent: agentOf(agent, TEAMMATE_AGENT[teammate]),
      ...optText('result', result),
      at: r.at,
    });
    if (refused) return { key, rule: refused };
  }
  // The merge's verdict: written on the group or on its gate, or reported by a log entry.
  const verdictKey = ['parallel_groups.review_verification.status', 'gates.review_verification.status'].find(
    (key) => touched(r, key) && (get(r.front, key) === GateStatus.passed || get(r.front, key) === GateStatus.failed),
  );
  const logged = take(r, (e) => e.kind === EntryKind.group && (e.gate === GateStatus.passed || e.gate === GateStatus.failed));
  if (logged?.message !== undefined) r.entries.unshift({ kind: EntryKind.phase, ...(logged.agent ? { agent: logged.agent } : {}), message: logged.message });
  if (verdictKey !== undefined || logged !== undefined) {
    const refused = send(r, { type: 'MERGE', at: r.at });
    if (refused && verdictKey !== undefined) return { key: verdictKey, rule: refused };
  }
  return null;
}

/** 5. Each appended message no fact carries, logged in the phase the flow is in. */
function logMessages(r: Reading): void {
  const carried = (message: string): boolean =>
    r.flow.facts.some((f) => ('message' in f.data && f.data.message === message) || ('result' in f.data && f.data.result === message));
  for (const entry of r.entries) {
    const ctx = r.flow.context;
    if (entry.message === undefined || ctx.current_phase === COMPLETE || carried(entry.message)) continue;
    r.flow.record({
      type: FlowEventType.message_logged,
      data: {
        flow_id: ctx.flow_id,
        phase: ctx.current_phase,
        iteration: ctx.iteration,
        ...(entry.agent ? { agent: entry.agent } : {}),
        message: entry.message,
      },
    });
  }
  r.entries = [];
}

/**
 * 4 and 6. The end of the flow (`active: false`, `current_phase: complete`) by the agent its log
 * entry names, a group whose teammates all passed merged first; or a move to another phase.
 */
function observeEndOrMove(r: Reading): Refusal | null {
  const target = r.front['current_phase'];
  const ends = r.front['active'] === false || target === COMPLETE;
  const ctx = r.flow.context;
  if (ends && ctx.status === FlowStatus.active) {
    const by = take(r, (e) => e.kind === EntryKind.complete, true) ?? take(r, (e) => e.agent !== undefined, true);
    const group = ctx.group;
    if (ctx.current_phase === Phase.review_verification && group !== null && group.status !== GateStatus.passed && mergeVerdict(group).all_passed)
      send(r, { type: 'MERGE', at: r.at });
    logMessages(r);
    // Agent Flow's documented early end: `--complete` with "Aborted: <why>".
    const refused =
      by?.message !== undefined && ABORT_MESSAGE.test(by.message)
        ? send(r, { type: 'ABORT', reason: abortReasonOf(by.message), message: by.message, at: r.at })
        : r.flow.end('ended outside Baton (active: false)', { agent: by?.agent, message: by?.message });
    return refused ? { key: 'active', rule: refused } : null;
  }
  logMessages(r);
  if (!ends && typeof target === 'string' && target !== ctx.current_phase && touched(r, 'current_phase')) {
    if (!(PHASES as readonly string[]).includes(target)) return { key: 'current_phase', rule: `'${target}' is not a phase of this flow` };
    const refused = send(r, { type: 'ADVANCE', to: target as Phase, at: r.at });
    if (refused) return { key: 'current_phase', rule: refused };
  }
  return null;
}

/** 7. Every edited key must read, in the flow reached, as the file has it. */
function checkReached(r: Reading, keys: readonly string[]): Refusal | null {
  const reached = flowFrontmatter(r.flow.context);
  for (const key of keys) {
    if (JSON.stringify(get(r.front, key)) === JSON.stringify(get(reached, key))) continue;
    if (key === 'iteration')
      return { key, rule: `Iteration is managed by Baton: it is ${r.flow.context.iteration} (it advances when review or verification fails)` };
    return { key, rule: `the edit does not follow from a legal flow step (Baton would show ${JSON.stringify(get(reached, key)) ?? 'nothing'})` };
  }
  return null;
}

/** The keys the edit changed: leaf paths that differ from the rendering, and kept keys the file dropped. */
function editedKeys(start: FlowContext, front: Record<string, unknown>, rendered: Record<string, unknown>): string[] {
  const all: string[] = [];
  changedPaths(front, rendered, '', all);
  const now = extraKeysOf(front).map((e) => e.path.join('.'));
  for (const kept of start.extra_keys) if (!now.includes(kept.path.join('.'))) all.push(kept.path.join('.'));
  return all;
}

export function observeEdit(
  start: FlowContext,
  front: Record<string, unknown>,
  file: string,
  sha256: string,
  at: string,
  appended: readonly AppendedEntry[] = [],
): ObservedEdit {
  const base = flowFrontmatter({ ...start, extra_keys: [] });
  const all = editedKeys(start, front, flowFrontmatter(start));
  const keys = all.filter((k) => !DERIVED.some((re) => re.test(k)));
  if (keys.length === 0 && appended.length === 0) return { kind: 'unchanged' };
  if (start.status !== FlowStatus.active)
    return { kind: 'illegal', key: keys[0] ?? '(body)', rule: `the flow has ended (${start.status}); nothing can change it` };

  const r: Reading = { front, base, flow: new FlowDriver(start, at), at, all, entries: [...appended] };
  // The marker goes first; the facts the edit amounts to follow it in the same batch.
  r.flow.facts.push({ type: FlowEventType.observed, data: { flow_id: start.flow_id, file, sha256, keys: keys.length > 0 ? keys : ['(log)'] } });
  const extras = extraKeysOf(front);
  if (JSON.stringify(withExtraKeys(base, extras)) !== JSON.stringify(withExtraKeys(base, start.extra_keys)))
    r.flow.record({ type: FlowEventType.extra_keys_set, data: { flow_id: start.flow_id, extra_keys: extras } });

  const phase = start.current_phase === COMPLETE ? null : start.current_phase;
  const refusal =
    observeFields(r) ??
    (phase !== null && phase !== Phase.review_verification ? observeGate(r, phase) : null) ??
    (phase === Phase.review_verification ? observeTeam(r) : null) ??
    observeEndOrMove(r) ??
    checkReached(r, keys);
  if (refusal) return { kind: 'illegal', ...refusal };
  // An appended entry that says nothing Baton records (no message, no change) is no edit of the flow.
  if (keys.length === 0 && r.flow.facts.length === 1) return { kind: 'unchanged' };
  return { kind: 'legal', facts: r.flow.facts, keys, context: r.flow.context };
}
