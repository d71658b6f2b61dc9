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
import { refuse } from './flow-errors.js';
import type { ParsedUpdate, UpdateForm } from '../../deciders/flow-update.js';

/** `flow update` flags as commander hands them over, then validated into one form (§5.1). */
export const RawUpdateFlags = z.object({
  phase: z.string().optional(),
  gateResult: z.string().optional(),
  agent: z.string().optional(),
  message: z.string().optional(),
  parallelGroup: z.string().optional(),
  teammate: z.string().optional(),
  mergeParallel: z.boolean().optional(),
  complete: z.boolean().optional(),
  abort: z.string().optional(),
  fallbackSequential: z.boolean().optional(),
  iteration: z.string().optional(),
  setTaskComplexity: z.string().optional(),
  setReportRequested: z.string().optional(),
  setIntentGoal: z.string().optional(),
  setIntentDescription: z.string().optional(),
  setIntentActions: z.string().optional(),
  setIntentConstraints: z.string().optional(),
  setIntentAssumptions: z.string().optional(),
  setCodexDivergenceRounds: z.string().optional(),
});
export type RawUpdateFlags = z.infer<typeof RawUpdateFlags>;

export type { ParsedUpdate, UpdateForm } from '../../deciders/flow-update.js';

const FLAG_NAMES: Record<keyof RawUpdateFlags, string> = {
  phase: '--phase',
  gateResult: '--gate-result',
  agent: '--agent',
  message: '--message',
  parallelGroup: '--parallel-group',
  teammate: '--teammate',
  mergeParallel: '--merge-parallel',
  complete: '--complete',
  abort: '--abort',
  fallbackSequential: '--fallback-sequential',
  iteration: '--iteration',
  setTaskComplexity: '--set-task-complexity',
  setReportRequested: '--set-report-requested',
  setIntentGoal: '--set-intent-goal',
  setIntentDescription: '--set-intent-description',
  setIntentActions: '--set-intent-actions',
  setIntentConstraints: '--set-intent-constraints',
  setIntentAssumptions: '--set-intent-assumptions',
  setCodexDivergenceRounds: '--set-codex-divergence-rounds',
};

/** The `--set-*` flags: they ride along with any form (Agent Flow's script takes them with any call). */
const SET_FLAGS = [
  'setTaskComplexity',
  'setReportRequested',
  'setIntentGoal',
  'setIntentDescription',
  'setIntentActions',
  'setIntentConstraints',
  'setIntentAssumptions',
  'setCodexDivergenceRounds',
] as const satisfies readonly (keyof RawUpdateFlags)[];
const INTENT_FLAG: Record<IntentKey, keyof RawUpdateFlags> = {
  goal: 'setIntentGoal',
  description: 'setIntentDescription',
  actions: 'setIntentActions',
  constraints: 'setIntentConstraints',
  assumptions: 'setIntentAssumptions',
};

/** The `--set-*` values as one patch, or undefined when none is given; a bad value names its flag. */
export function parseSetFlags(raw: RawUpdateFlags): FlowFieldsPatch | undefined {
  const patch: FlowFieldsPatch = {};
  if (raw.setTaskComplexity !== undefined) {
    const value = TASK_COMPLEXITIES.find((c) => c === raw.setTaskComplexity);
    if (value === undefined) throw invalid(`Invalid --set-task-complexity value: '${raw.setTaskComplexity}'. Allowed: ${TASK_COMPLEXITIES.join(', ')}.`);
    patch.task_complexity = value;
  }
  if (raw.setReportRequested !== undefined) {
    if (raw.setReportRequested !== 'true' && raw.setReportRequested !== 'false')
      throw invalid(`Invalid --set-report-requested value: '${raw.setReportRequested}'. Allowed: true, false.`);
    patch.report_requested = raw.setReportRequested === 'true';
  }
  if (raw.setCodexDivergenceRounds !== undefined) {
    const v = raw.setCodexDivergenceRounds;
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw invalid(`Invalid --set-codex-divergence-rounds value: '${v}'. Allowed: an integer ≥ 0.`);
    patch.codex_divergence_rounds = Number(v);
  }
  for (const key of INTENT_KEYS) {
    const value = raw[INTENT_FLAG[key]];
    if (typeof value !== 'string') continue;
    if (value.length > MAX_MESSAGE_LENGTH) throw invalid(`${FLAG_NAMES[INTENT_FLAG[key]]} must be at most ${MAX_MESSAGE_LENGTH} characters`);
    patch.intent = { ...patch.intent, [key]: value };
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/** Agent Flow's documented abort: `--complete --message "Aborted: <why>"`. */
const ABORT_MESSAGE = /^\s*aborted\s*:/i;

function abortReasonOf(message: string): string {
  const reason = message.replace(ABORT_MESSAGE, '').replace(/\s+/g, ' ').trim();
  return reason === '' ? 'aborted' : reason.slice(0, MAX_REASON_LENGTH);
}

function invalid(message: string): Error {
  return refuse(ErrorCode.INVALID_INPUT, message);
}

/**
 * `--agent`: one of the six names, matched case-insensitively and stored capitalized; any other
 * name (Agent Flow stores any string, e.g. `Codex`) is kept as given when it is one line.
 */
export function parseAgent(value: string): string {
  const agent = AGENTS.find((a) => a.toLowerCase() === value.toLowerCase());
  if (agent !== undefined) return agent;
  if (!AgentName.safeParse(value).success)
    throw invalid(`Invalid --agent value: '${value}'. An agent name is 1–${MAX_AGENT_NAME_LENGTH} characters on one line.`);
  return value;
}

function parseResult(value: string): GateResult {
  const result = GATE_RESULTS.find((r) => r === value);
  if (result === undefined) throw invalid(`Invalid --gate-result value: '${value}'. Allowed: ${GATE_RESULTS.join(', ')}.`);
  return result;
}

function parseMessage(value: string | undefined): string | undefined {
  if (value !== undefined && value.length > MAX_MESSAGE_LENGTH) throw invalid(`--message must be at most ${MAX_MESSAGE_LENGTH} characters`);
  return value;
}

interface UpdateValues {
  result: GateResult | undefined;
  agent: string | undefined;
  message: string | undefined;
  teammate: Teammate | undefined;
  iteration: number | undefined;
}

/** Every flag's value on its own. */
function parseUpdateValues(raw: RawUpdateFlags): UpdateValues {
  const result = raw.gateResult === undefined ? undefined : parseResult(raw.gateResult);
  const agent = raw.agent === undefined ? undefined : parseAgent(raw.agent);
  const message = parseMessage(raw.message);
  let teammate: Teammate | undefined;
  if (raw.teammate !== undefined) {
    teammate = TEAMMATES.find((t) => t === raw.teammate);
    if (teammate === undefined) throw invalid(`Invalid --teammate value: '${raw.teammate}'. Allowed: ${TEAMMATES.join(', ')}.`);
  }
  if (raw.parallelGroup !== undefined && raw.parallelGroup !== GROUP) throw invalid(`Unknown parallel group '${raw.parallelGroup}'. Allowed: ${GROUP}.`);
  let iteration: number | undefined;
  if (raw.iteration !== undefined) {
    if (!/^\d+$/.test(raw.iteration) || Number(raw.iteration) < 1 || !Number.isSafeInteger(Number(raw.iteration)))
      throw invalid('--iteration must be a positive integer');
    iteration = Number(raw.iteration);
  }
  return { result, agent, message, teammate, iteration };
}

const opt = <T>(key: string, value: T | undefined): Record<string, T> => (value === undefined ? {} : { [key]: value });

/** The combination: which form the given flags make, refusing conflicting ones. */
function updateFormOf(raw: RawUpdateFlags, given: (keyof RawUpdateFlags)[], values: UpdateValues, fields: FlowFieldsPatch | undefined): UpdateForm {
  const { result, agent, message, teammate } = values;
  const has = (k: keyof RawUpdateFlags): boolean => given.includes(k);
  const allowOnly = (form: keyof RawUpdateFlags, allowed: (keyof RawUpdateFlags)[]): void => {
    const extra = given.filter((k) => k !== form && k !== 'iteration' && !allowed.includes(k));
    if (extra.length > 0) throw invalid(`Conflicting flags: ${FLAG_NAMES[form]} cannot be combined with ${extra.map((k) => FLAG_NAMES[k]).join(', ')}`);
  };

  if (has('complete')) {
    allowOnly('complete', ['gateResult', 'agent', 'message']);
    // Agent Flow ends a run early with --complete and an "Aborted: …" message; Baton records it as
    // the abort it is (gates left as they were), never as a completion.
    if (message !== undefined && ABORT_MESSAGE.test(message)) return { kind: 'abort', reason: abortReasonOf(message), message };
    if (result !== undefined && result !== 'passed') throw invalid('Conflicting flags: --complete takes only --gate-result passed');
    return { kind: 'complete', withGate: result !== undefined, ...opt('agent', agent), ...opt('message', message) };
  }
  if (has('abort')) {
    allowOnly('abort', ['message']);
    const reason = raw.abort ?? '';
    if (reason.trim().length === 0 || reason.length > MAX_REASON_LENGTH) throw invalid(`--abort REASON must be 1–${MAX_REASON_LENGTH} characters`);
    return { kind: 'abort', reason, ...opt('message', message) };
  }
  if (has('fallbackSequential')) {
    allowOnly('fallbackSequential', ['message']);
    return { kind: 'fallback', ...opt('message', message) };
  }
  if (has('mergeParallel')) {
    if (!has('parallelGroup')) throw invalid('Conflicting flags: --merge-parallel needs --parallel-group review_verification');
    allowOnly('mergeParallel', ['parallelGroup']);
    return { kind: 'merge' };
  }
  if (has('teammate')) {
    if (!has('parallelGroup')) throw invalid('Conflicting flags: --teammate needs --parallel-group review_verification');
    allowOnly('teammate', ['parallelGroup', 'gateResult', 'agent', 'message']);
    if (result === undefined) throw invalid('Conflicting flags: --teammate needs --gate-result');
    return { kind: 'teammate', teammate: teammate!, result, ...opt('agent', agent), ...opt('message', message) };
  }
  if (has('parallelGroup')) {
    allowOnly('parallelGroup', ['gateResult', 'message']);
    if (result === undefined) throw invalid('Conflicting flags: --parallel-group needs --gate-result, --teammate or --merge-parallel');
    return { kind: 'group_start', result, ...opt('message', message) };
  }
  if (has('phase')) {
    allowOnly('phase', ['gateResult', 'agent', 'message']);
    return { kind: 'phase', phase: raw.phase ?? '', ...opt('result', result), ...opt('agent', agent), ...opt('message', message) };
  }
  if (has('gateResult')) {
    allowOnly('gateResult', ['agent', 'message']);
    return { kind: 'gate', result: result!, ...opt('agent', agent), ...opt('message', message) };
  }
  if ((has('agent') || has('message')) && fields === undefined)
    throw invalid('Conflicting flags: --agent and --message need --gate-result, --phase, --complete, --abort or --fallback-sequential');
  return { kind: 'assert' };
}

/** Stage one of "one call, one decision": every flag on its own, and the combination. */
export function parseUpdateFlags(raw: RawUpdateFlags): ParsedUpdate {
  const all = (Object.keys(FLAG_NAMES) as (keyof RawUpdateFlags)[]).filter((k) => raw[k] !== undefined && raw[k] !== false);
  if (all.length === 0) throw invalid('Nothing to update');
  const fields = parseSetFlags(raw);
  const given = all.filter((k) => !(SET_FLAGS as readonly string[]).includes(k));
  // Values first, so a bad value is named even inside a bad combination.
  const values = parseUpdateValues(raw);
  const form = updateFormOf(raw, given, values, fields);
  return {
    form,
    group: given.includes('parallelGroup'),
    ...(values.iteration === undefined ? {} : { iteration: values.iteration }),
    ...(fields === undefined ? {} : { fields }),
  };
}
