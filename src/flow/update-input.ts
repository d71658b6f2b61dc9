import { z } from 'zod';
import { AgentName, type FlowFieldsPatch } from '../../events/flow/flow-events.js';
import {
  AGENTS,
  GATE_RESULTS,
  GROUP,
  INTENT_KEYS,
  MAX_AGENT_NAME_LENGTH,
  MAX_MESSAGE_LENGTH,
  MAX_REASON_LENGTH,
  TASK_COMPLEXITIES,
  TEAMMATES,
  type GateResult,
  type IntentKey,
  type Teammate,
} from '../../events/flow/vocabulary.js';
import { ErrorCode } from '../errors.js';
import { invalidFlowInput, refuse } from './flow-errors.js';
import type { ParsedUpdate, UpdateForm } from '../../deciders/flow-update.js';

/**
 * `flow update`'s input by the flow's own names (§5.1), as every surface gives it: a refusal names
 * the field (`gate_result`, `intent_goal`) and each surface words it its way (the CLI says
 * `--gate-result`, `--set-intent-goal`). Numbers may come as text, as a command line gives them.
 */
export const FlowUpdateInput = z.object({
  phase: z.string().optional(),
  gate_result: z.string().optional(),
  agent: z.string().optional(),
  message: z.string().optional(),
  parallel_group: z.string().optional(),
  teammate: z.string().optional(),
  merge_parallel: z.boolean().optional(),
  complete: z.boolean().optional(),
  abort: z.string().optional(),
  fallback_sequential: z.boolean().optional(),
  iteration: z.union([z.string(), z.number()]).optional(),
  task_complexity: z.string().optional(),
  report_requested: z.string().optional(),
  intent_goal: z.string().optional(),
  intent_description: z.string().optional(),
  intent_actions: z.string().optional(),
  intent_constraints: z.string().optional(),
  intent_assumptions: z.string().optional(),
  codex_divergence_rounds: z.union([z.string(), z.number()]).optional(),
});
export type FlowUpdateInput = z.infer<typeof FlowUpdateInput>;
type Field = keyof FlowUpdateInput;

export type { ParsedUpdate, UpdateForm } from '../../deciders/flow-update.js';

/** Every field, in the order a conflict lists them. */
const FIELDS = Object.keys(FlowUpdateInput.shape) as Field[];

/** Agent Flow's fields: they ride along with any form (Agent Flow's script takes them with any call). */
const FLOW_FIELDS = [
  'task_complexity',
  'report_requested',
  'intent_goal',
  'intent_description',
  'intent_actions',
  'intent_constraints',
  'intent_assumptions',
  'codex_divergence_rounds',
] as const satisfies readonly Field[];
const INTENT_FIELD: Record<IntentKey, Field> = {
  goal: 'intent_goal',
  description: 'intent_description',
  actions: 'intent_actions',
  constraints: 'intent_constraints',
  assumptions: 'intent_assumptions',
};

const text = (value: string | number | undefined): string | undefined => (value === undefined ? undefined : String(value));

/** A value outside its list: `Invalid <field> value: 'x'. Allowed: …` */
function notAllowed(field: Field, value: string, allowed: string): Error {
  return invalidFlowInput(field, (name) => `Invalid ${name} value: '${value}'. Allowed: ${allowed}.`);
}

/** Agent Flow's fields as one patch, or undefined when none is given; a bad value names its field. */
export function parseFlowFields(input: FlowUpdateInput): FlowFieldsPatch | undefined {
  const patch: FlowFieldsPatch = {};
  if (input.task_complexity !== undefined) {
    const value = TASK_COMPLEXITIES.find((c) => c === input.task_complexity);
    if (value === undefined) throw notAllowed('task_complexity', input.task_complexity, TASK_COMPLEXITIES.join(', '));
    patch.task_complexity = value;
  }
  if (input.report_requested !== undefined) {
    if (input.report_requested !== 'true' && input.report_requested !== 'false') throw notAllowed('report_requested', input.report_requested, 'true, false');
    patch.report_requested = input.report_requested === 'true';
  }
  const rounds = text(input.codex_divergence_rounds);
  if (rounds !== undefined) {
    if (!/^\d+$/.test(rounds) || !Number.isSafeInteger(Number(rounds))) throw notAllowed('codex_divergence_rounds', rounds, 'an integer ≥ 0');
    patch.codex_divergence_rounds = Number(rounds);
  }
  for (const key of INTENT_KEYS) {
    const field = INTENT_FIELD[key];
    const value = input[field];
    if (typeof value !== 'string') continue;
    if (value.length > MAX_MESSAGE_LENGTH) throw invalidFlowInput(field, (name) => `${name} must be at most ${MAX_MESSAGE_LENGTH} characters`);
    patch.intent = { ...patch.intent, [key]: value };
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/** Agent Flow's documented abort: `complete` with the message "Aborted: <why>". */
export const ABORT_MESSAGE = /^\s*aborted\s*:/i;

export function abortReasonOf(message: string): string {
  const reason = message.replace(ABORT_MESSAGE, '').replace(/\s+/g, ' ').trim();
  return reason === '' ? 'aborted' : reason.slice(0, MAX_REASON_LENGTH);
}

/**
 * `agent`: one of the six names, matched case-insensitively and stored capitalized; any other
 * name (Agent Flow stores any string, e.g. `Codex`) is kept as given when it is one line.
 */
export function parseAgent(value: string): string {
  const agent = AGENTS.find((a) => a.toLowerCase() === value.toLowerCase());
  if (agent !== undefined) return agent;
  if (!AgentName.safeParse(value).success)
    throw invalidFlowInput('agent', (name) => `Invalid ${name} value: '${value}'. An agent name is 1–${MAX_AGENT_NAME_LENGTH} characters on one line.`);
  return value;
}

function parseResult(value: string): GateResult {
  const result = GATE_RESULTS.find((r) => r === value);
  if (result === undefined) throw notAllowed('gate_result', value, GATE_RESULTS.join(', '));
  return result;
}

function parseMessage(value: string | undefined): string | undefined {
  if (value !== undefined && value.length > MAX_MESSAGE_LENGTH)
    throw invalidFlowInput('message', (name) => `${name} must be at most ${MAX_MESSAGE_LENGTH} characters`);
  return value;
}

interface UpdateValues {
  result: GateResult | undefined;
  agent: string | undefined;
  message: string | undefined;
  teammate: Teammate | undefined;
  iteration: number | undefined;
}

/** Every field's value on its own. */
function parseUpdateValues(input: FlowUpdateInput): UpdateValues {
  const result = input.gate_result === undefined ? undefined : parseResult(input.gate_result);
  const agent = input.agent === undefined ? undefined : parseAgent(input.agent);
  const message = parseMessage(input.message);
  let teammate: Teammate | undefined;
  if (input.teammate !== undefined) {
    teammate = TEAMMATES.find((t) => t === input.teammate);
    if (teammate === undefined) throw notAllowed('teammate', input.teammate, TEAMMATES.join(', '));
  }
  const group = input.parallel_group;
  if (group !== undefined && group !== GROUP) throw invalidFlowInput('parallel_group', () => `Unknown parallel group '${group}'. Allowed: ${GROUP}.`);
  let iteration: number | undefined;
  const given = text(input.iteration);
  if (given !== undefined) {
    if (!/^\d+$/.test(given) || Number(given) < 1 || !Number.isSafeInteger(Number(given)))
      throw invalidFlowInput('iteration', (name) => `${name} must be a positive integer`);
    iteration = Number(given);
  }
  return { result, agent, message, teammate, iteration };
}

/** Two or more fields that do not go together: `Conflicting flags: …`, every field named the surface's way. */
function conflict(field: Field, say: (name: string, ...others: string[]) => string, others: readonly Field[]): Error {
  return invalidFlowInput(field, (name, ...rest) => `Conflicting flags: ${say(name, ...rest)}`, others);
}

/** `agent` without a message or a form: it names who did nothing. */
function agentAlone(): Error {
  const needs: Field[] = ['message', 'gate_result', 'phase', 'complete', 'abort', 'fallback_sequential'];
  return conflict('agent', (agent, m, g, p, c, a, f) => `${agent} needs ${m}, ${g}, ${p}, ${c}, ${a} or ${f}`, needs);
}

const opt = <T>(key: string, value: T | undefined): Record<string, T> => (value === undefined ? {} : { [key]: value });

/** The combination: which form the given fields make, refusing conflicting ones. */
function updateFormOf(input: FlowUpdateInput, given: Field[], values: UpdateValues, fields: FlowFieldsPatch | undefined): UpdateForm {
  const { result, agent, message, teammate } = values;
  const has = (k: Field): boolean => given.includes(k);
  const allowOnly = (form: Field, allowed: Field[]): void => {
    const extra = given.filter((k) => k !== form && k !== 'iteration' && !allowed.includes(k));
    if (extra.length > 0) throw conflict(form, (name, ...others) => `${name} cannot be combined with ${others.join(', ')}`, extra);
  };

  if (has('complete')) {
    allowOnly('complete', ['gate_result', 'agent', 'message']);
    // Agent Flow ends a run early with `complete` and an "Aborted: …" message; Baton records it as
    // the abort it is (gates left as they were), never as a completion.
    if (message !== undefined && ABORT_MESSAGE.test(message)) return { kind: 'abort', reason: abortReasonOf(message), message };
    if (result !== undefined && result !== 'passed') throw conflict('complete', (c, g) => `${c} takes only ${g} passed`, ['gate_result']);
    return { kind: 'complete', withGate: result !== undefined, ...opt('agent', agent), ...opt('message', message) };
  }
  if (has('abort')) {
    allowOnly('abort', ['message']);
    const reason = input.abort ?? '';
    if (reason.trim().length === 0 || reason.length > MAX_REASON_LENGTH)
      throw invalidFlowInput('abort', (name) => `${name} REASON must be 1–${MAX_REASON_LENGTH} characters`);
    return { kind: 'abort', reason, ...opt('message', message) };
  }
  if (has('fallback_sequential')) {
    allowOnly('fallback_sequential', ['message']);
    return { kind: 'fallback', ...opt('message', message) };
  }
  if (has('merge_parallel')) {
    if (!has('parallel_group')) throw conflict('merge_parallel', (m, g) => `${m} needs ${g} ${GROUP}`, ['parallel_group']);
    allowOnly('merge_parallel', ['parallel_group', 'message']);
    return { kind: 'merge', ...opt('message', message) };
  }
  if (has('teammate')) {
    if (!has('parallel_group')) throw conflict('teammate', (t, g) => `${t} needs ${g} ${GROUP}`, ['parallel_group']);
    allowOnly('teammate', ['parallel_group', 'gate_result', 'agent', 'message']);
    if (result === undefined) throw conflict('teammate', (t, r) => `${t} needs ${r}`, ['gate_result']);
    return { kind: 'teammate', teammate: teammate!, result, ...opt('agent', agent), ...opt('message', message) };
  }
  if (has('parallel_group')) {
    allowOnly('parallel_group', ['gate_result', 'message']);
    if (result === undefined) throw conflict('parallel_group', (g, r, t, m) => `${g} needs ${r}, ${t} or ${m}`, ['gate_result', 'teammate', 'merge_parallel']);
    return { kind: 'group_start', result, ...opt('message', message) };
  }
  if (has('phase')) {
    allowOnly('phase', ['gate_result', 'agent', 'message']);
    return { kind: 'phase', phase: input.phase ?? '', ...opt('result', result), ...opt('agent', agent), ...opt('message', message) };
  }
  if (has('gate_result')) {
    allowOnly('gate_result', ['agent', 'message']);
    return { kind: 'gate', result: result!, ...opt('agent', agent), ...opt('message', message) };
  }
  // Agent Flow's message-only update (`--agent Loid --message "Completed step 3 of 5"`) logs the message.
  if (message !== undefined) return { kind: 'message', ...opt('agent', agent), message };
  if (has('agent') && fields === undefined) throw agentAlone();
  return { kind: 'assert' };
}

/** Stage one of "one call, one decision": every field on its own, and the combination. */
export function parseUpdateInput(input: FlowUpdateInput): ParsedUpdate {
  const all = FIELDS.filter((k) => input[k] !== undefined && input[k] !== false);
  if (all.length === 0) throw refuse(ErrorCode.INVALID_INPUT, 'Nothing to update');
  const fields = parseFlowFields(input);
  const given = all.filter((k) => !(FLOW_FIELDS as readonly string[]).includes(k));
  // Values first, so a bad value is named even inside a bad combination.
  const values = parseUpdateValues(input);
  const form = updateFormOf(input, given, values, fields);
  return {
    form,
    group: given.includes('parallel_group'),
    ...(values.iteration === undefined ? {} : { iteration: values.iteration }),
    ...(fields === undefined ? {} : { fields }),
  };
}
