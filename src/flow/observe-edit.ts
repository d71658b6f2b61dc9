import type { z } from 'zod';
import { parse } from 'yaml';
import { FlowDriver } from './flow-driver.js';
import { FlowEventType, FlowFieldsPatch, type FlowFact } from '../../events/flow/flow-events.js';
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
import type { FlowContext } from '../../machines/flow-context.js';
import type { FlowMachineEvent } from '../../machines/flow-events.js';
import { flowFrontmatter } from '../../projections/flow/render-flow-file.js';

/**
 * What an outside edit of a flow state file amounts to (principle 2: what Baton sees outside the
 * log enters as a fact). The file's frontmatter is compared with the rendering of the flow; the
 * keys that differ are turned into the machine events Agent Flow's update script stands for (a
 * `--set-*` field, a gate result, a teammate result, a merge verdict, a phase move, the end of the
 * flow), and the machine decides them like any `flow update`. The edit is legal when the machine
 * accepts every step and the flow it reaches shows every edited key as the file has it; otherwise
 * the first key that does not follow is named with the rule it breaks.
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

/** The teammates' results and the group's verdict an edit of a team file records; the first refused key, if any. */
function observeTeam(
  front: Record<string, unknown>,
  touched: (prefix: string) => boolean,
  send: (event: FlowMachineEvent) => string | null,
  at: string,
): { key: string; rule: string } | undefined {
  for (const teammate of TEAMMATES as readonly Teammate[]) {
    const key = `parallel_groups.review_verification.${teammate}.status`;
    if (!touched(key)) continue;
    const sub = get(front, `parallel_groups.review_verification.${teammate}`);
    const status = gateResult(get(sub, 'status'));
    if (status === null) return { key, rule: `a teammate result is one of ${GATE_RESULTS.join(', ')}` };
    const refused = send({
      type: 'RECORD_TEAMMATE',
      teammate,
      status,
      agent: agentOf(get(sub, 'agent'), TEAMMATE_AGENT[teammate]),
      ...optText('result', get(sub, 'result')),
      at,
    });
    if (refused) return { key, rule: refused };
  }
  const groupStatus = get(front, 'parallel_groups.review_verification.status');
  if (touched('parallel_groups.review_verification.status') && (groupStatus === GateStatus.passed || groupStatus === GateStatus.failed)) {
    const refused = send({ type: 'MERGE', at });
    if (refused) return { key: 'parallel_groups.review_verification.status', rule: refused };
  }
  return undefined;
}

export function observeEdit(start: FlowContext, front: Record<string, unknown>, file: string, sha256: string, at: string): ObservedEdit {
  const rendered = flowFrontmatter(start);
  const all: string[] = [];
  changedPaths(front, rendered, '', all);
  const keys = all.filter((k) => !DERIVED.some((re) => re.test(k)));
  if (keys.length === 0) return { kind: 'unchanged' };
  if (start.status !== FlowStatus.active) return { kind: 'illegal', key: keys[0]!, rule: `the flow has ended (${start.status}); nothing can change it` };

  const flow = new FlowDriver(start, at);
  const send = (event: FlowMachineEvent): string | null => flow.send(event);
  const illegal = (key: string, rule: string): ObservedEdit => ({ kind: 'illegal', key, rule });
  const touched = (prefix: string): boolean => keys.some((k) => k === prefix || k.startsWith(`${prefix}.`));

  // The marker goes first; the facts the edit amounts to follow it in the same batch.
  flow.facts.push({ type: FlowEventType.observed, data: { flow_id: start.flow_id, file, sha256, keys } });

  // 1. Agent Flow's v1.5+ fields (--set-*).
  const patch: Record<string, unknown> = {};
  for (const key of FIELD_KEYS)
    if (touched(key)) patch[key] = key === 'intent' ? { ...(rendered['intent'] as object), ...(front['intent'] as object) } : front[key];
  if (Object.keys(patch).length > 0) {
    const parsed = FlowFieldsPatch.safeParse(patch);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return illegal(issue.path.join('.') || Object.keys(patch)[0]!, issue.message);
    }
    const refused = send({ type: 'SET_FIELDS', fields: parsed.data, at });
    if (refused) return illegal(Object.keys(patch)[0]!, refused);
  }

  // 2. A gate result on the current phase (the phase being left when current_phase moved too).
  const phase = start.current_phase === COMPLETE ? null : start.current_phase;
  if (phase !== null && phase !== Phase.review_verification && touched(`gates.${phase}.status`)) {
    const status = gateResult(get(front, `gates.${phase}.status`));
    if (status === null) return illegal(`gates.${phase}.status`, `a gate result is one of ${GATE_RESULTS.join(', ')}`);
    const gate = get(front, `gates.${phase}`);
    const refused = send({
      type: 'RECORD_GATE',
      status,
      agent: agentOf(get(gate, 'agent'), PHASE_AGENT[phase]),
      ...optText('message', get(gate, 'message')),
      at,
    });
    if (refused) return illegal(`gates.${phase}.status`, refused);
  }

  // 3. Teammate results and the group's verdict (team files).
  if (phase === Phase.review_verification) {
    const refusal = observeTeam(front, touched, send, at);
    if (refusal) return illegal(refusal.key, refusal.rule);
  }

  // 4. A phase move, or the end of the flow (`active: false`, `current_phase: complete`).
  const target = front['current_phase'];
  const ends = front['active'] === false || target === COMPLETE;
  if (ends && flow.context.status === FlowStatus.active) {
    const refused = flow.end('ended outside Baton (active: false)');
    if (refused) return illegal('active', refused);
  } else if (!ends && typeof target === 'string' && target !== flow.context.current_phase && touched('current_phase')) {
    if (!(PHASES as readonly string[]).includes(target)) return illegal('current_phase', `'${target}' is not a phase of this flow`);
    const refused = send({ type: 'ADVANCE', to: target as Phase, at });
    if (refused) return illegal('current_phase', refused);
  }

  // 5. Every edited key must read, in the flow reached, as the file has it.
  const reached = flowFrontmatter(flow.context);
  for (const key of keys) {
    if (JSON.stringify(get(front, key)) === JSON.stringify(get(reached, key))) continue;
    if (key === 'iteration')
      return illegal(key, `Iteration is managed by Baton: it is ${flow.context.iteration} (it advances when review or verification fails)`);
    return illegal(key, `the edit does not follow from a legal flow step (Baton would show ${JSON.stringify(get(reached, key)) ?? 'nothing'})`);
  }
  return { kind: 'legal', facts: flow.facts, keys, context: flow.context };
}
