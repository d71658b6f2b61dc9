import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { decideFlowAdopt, decideFlowInit, decideFlowMerge, type AdoptFlow, type InitFlow } from '../../../deciders/flows.js';
import { decideFlowUpdate } from '../../../deciders/flow-update.js';
import { FLOW_REGISTRY_STREAM } from '../../../events/flow/flow-registry-events.js';
import { GROUP, MAX_TASK_LENGTH, Mode, Variant } from '../../../events/flow/vocabulary.js';
import { FlowMergeEnvelope, FlowStatusEnvelope, flowStatusEnvelope, latestFlow, renderFlowFile, STATE_FILE } from '../../../projections/flow/index.js';
import { readIfFile } from '../../artifacts/atomic-write.js';
import { backupFile } from '../../artifacts/backup-file.js';
import { ErrorCode } from '../../errors.js';
import { adoptDeepDiveEvents } from '../../flow/adopt-deep-dive.js';
import { chooseAdoptFile } from '../../flow/adopt-file.js';
import { planAdoption } from '../../flow/adopt-flow.js';
import { adoptableFileHints, adoptHint } from '../../flow/adopt-hints.js';
import { isActiveAgentFlowRun, readAgentFlowFile } from '../../flow/agent-flow-file.js';
import { invalidFlowInput, refuse } from '../../flow/flow-errors.js';
import { emitFlowWarnings } from '../../flow/flow-warnings.js';
import { decideAndAppend, StateFileKind, syncStateFiles } from '../../flow/flow-workspace.js';
import { reconcileDeepDiveFile, reconcileFlowFile } from '../../flow/state-file-edits.js';
import { sha256 } from '../../flow/state-file-memory.js';
import { parseUpdateInput, type FlowUpdateInput } from '../../flow/update-input.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';

/**
 * Agent Flow's phase gates on the log (phase-gates.md §4–§9), as the application runs them for
 * every surface: the input by the flow's own names (`max_iterations`, `gate_result`, `file`),
 * checked; the flow's state files reconciled with outside edits; the decision through the command
 * handler (deciders/flows.ts, deciders/flow-update.ts); the state files rendered; the envelope
 * checked against its schema. Warnings go to `app.output` once (flow-warnings.ts).
 */
export type { FlowUpdateInput } from '../../flow/update-input.js';

export interface FlowInitInput {
  /** The task description (the CLI joins its words with single spaces). */
  task: string;
  /** The team variant (team mode when CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1). */
  team?: boolean | undefined;
  /** The team variant in sequential mode. */
  force_sequential?: boolean | undefined;
  /** How many iterations the failure loop may run (default 10); text as a command line gives it. */
  max_iterations?: string | number | undefined;
  use_deep_dive?: boolean | undefined;
}

const DEEP_DIVE_MISSING = 'Deep-dive context requested but not available; continuing without it.';

function maxIterationsOf(value: string | number | undefined): number {
  if (value === undefined) return 10;
  const given = String(value);
  if (!/^\d+$/.test(given) || Number(given) < 1 || !Number.isSafeInteger(Number(given)))
    throw invalidFlowInput('max_iterations', (name) => `${name} must be a positive integer`);
  return Number(given);
}

/** `flow init` (§4): one active flow per workspace; a state file Baton did not render is kept aside. */
export async function initFlow(app: AppContext, input: FlowInitInput): Promise<FlowStatusEnvelope> {
  const task = input.task;
  if (task.trim() === '') throw refuse(ErrorCode.INVALID_INPUT, 'No task description provided');
  if (task.length > MAX_TASK_LENGTH) throw refuse(ErrorCode.INVALID_INPUT, `The task description must be at most ${MAX_TASK_LENGTH} characters`);
  const maxIterations = maxIterationsOf(input.max_iterations);
  // I4: variant and mode are decided once, here.
  const variant = input.team || input.force_sequential ? Variant.team : Variant.orchestrate;
  const teams = app.env['CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS'] === '1' && !input.force_sequential;
  const mode = variant === Variant.team && teams ? Mode.team : Mode.sequential;
  const teamAvailable = variant === Variant.team ? teams : null;
  const workspace = await app.workspace();
  const flowId = `flow_${randomBytes(12).toString('hex')}`;
  const warnings: string[] = [...(await reconcileFlowFile(app)), ...(await reconcileDeepDiveFile(app))];
  // A deep dive Agent Flow's compile script completed is used like one Baton recorded.
  const dd = adoptDeepDiveEvents(workspace);
  const deepDive = dd !== null && 'events' in dd && dd.complete ? dd : null;
  let backedUp = false;
  let deepDiveKept = false;

  const path = join(workspace, STATE_FILE[variant]);
  const command: Omit<InitFlow, 'agentFlowRun'> = {
    flowId,
    variant,
    mode,
    teamAvailable,
    task,
    maxIterations,
    useDeepDive: input.use_deep_dive === true,
    deepDive: deepDive === null ? null : { events: deepDive.events, scope: deepDive.scope },
    now: app.now,
  };
  const { result } = await decideAndAppend(
    app,
    (state, versions) => {
      const existing = readIfFile(workspace, path);
      const decision = decideFlowInit({ ...command, agentFlowRun: unrecordedRun(workspace) }, { state, versions });
      // I8: a state file Baton did not render (for the previous flow of this variant) is kept.
      const previous = state.flows[variant];
      if (!backedUp && existing !== undefined && (previous === null || !existing.equals(Buffer.from(renderFlowFile(previous), 'utf8')))) {
        backupFile(workspace, path, existing, app.now);
        backedUp = true;
      }
      // The deep dive taken over is kept as Agent Flow wrote it; its file becomes Baton's rendering.
      if (!deepDiveKept && decision.outcome.deepDiveAdopted && deepDive !== null) {
        backupFile(workspace, join(workspace, deepDive.rel), deepDive.bytes, app.now);
        deepDiveKept = true;
      }
      return decision;
    },
    [FLOW_REGISTRY_STREAM],
  );
  if (result.deepDiveMissing && !warnings.includes(DEEP_DIVE_MISSING)) warnings.push(DEEP_DIVE_MISSING);
  emitFlowWarnings(app, warnings);
  const state = await syncStateFiles(app, result.deepDiveAdopted ? [StateFileKind.flow, StateFileKind.deepDive] : [StateFileKind.flow]);
  return checked(FlowStatusEnvelope, flowStatusEnvelope(state, app.now, warnings));
}

/** The first state file that holds an Agent Flow run Baton has not recorded, as the way to take it over. */
function unrecordedRun(workspace: string): string | null {
  for (const rel of Object.values(STATE_FILE)) {
    const bytes = readIfFile(workspace, join(workspace, rel));
    const run = bytes === undefined ? null : isActiveAgentFlowRun(bytes.toString('utf8'));
    if (run !== null) return adoptHint(rel, run.current_phase);
  }
  return null;
}

/** `flow update` (§5, §6): the input checked, decided through the machine (deciders/flow-update.ts), one batch appended. */
export async function updateFlow(app: AppContext, input: FlowUpdateInput): Promise<FlowStatusEnvelope> {
  const parsed = parseUpdateInput(input);
  const warnings = await reconcileFlowFile(app);
  const { appended, state: read } = await decideAndAppend(app, (state) => decideFlowUpdate({ update: parsed, now: app.now }, state));
  // A no-op rewrites nothing (R2) and reads nothing more; a state file that went missing is restored by `flow status`.
  const state = appended ? await syncStateFiles(app, [StateFileKind.flow]) : read;
  emitFlowWarnings(app, warnings);
  return checked(FlowStatusEnvelope, flowStatusEnvelope(state, app.now, warnings));
}

/** `flow adopt [file]`: an Agent Flow run (and its deep dive) taken over as events; the adopted bytes are kept. */
export async function adoptFlow(app: AppContext, input: { file?: string | undefined }): Promise<FlowStatusEnvelope> {
  const workspace = await app.workspace();
  const chosen = chooseAdoptFile(workspace, input.file);
  const read = readAgentFlowFile(chosen.bytes.toString('utf8'));
  if (!('file' in read)) throw refuse(ErrorCode.INVALID_INPUT, `${chosen.rel}: key '${read.key}': ${read.rule}`);
  const flowId = `flow_${randomBytes(12).toString('hex')}`;
  const meta = { flow_id: flowId, file: chosen.rel, sha256: sha256(chosen.bytes), at: app.now, extra_keys: read.extra_keys };
  const adoption = planAdoption(read.file, chosen.variant, meta);
  if (!('plan' in adoption)) throw refuse(ErrorCode.INVALID_INPUT, `${chosen.rel}: key '${adoption.key}': ${adoption.rule}`);
  const deepDive = adoptDeepDiveEvents(workspace);
  if (deepDive !== null && 'key' in deepDive) throw refuse(ErrorCode.INVALID_INPUT, `${deepDive.rel}: key '${deepDive.key}': ${deepDive.rule}`);
  // A deep dive Baton already records is never overwritten in silence by the sync below.
  const warnings: string[] = await reconcileDeepDiveFile(app);
  let backedUp = false;

  const command: AdoptFlow = { flowId, variant: chosen.variant, plan: adoption.plan, deepDive: deepDive === null ? null : deepDive.events };
  await decideAndAppend(
    app,
    (state, versions) => {
      const decision = decideFlowAdopt(command, { state, versions });
      if (!backedUp) {
        // The adopted bytes are kept as they were; the file becomes Baton's rendering.
        backupFile(workspace, join(workspace, chosen.rel), chosen.bytes, app.now);
        if (decision.outcome.deepDiveAdopted && deepDive !== null && 'bytes' in deepDive)
          backupFile(workspace, join(workspace, deepDive.rel), deepDive.bytes, app.now);
        backedUp = true;
      }
      return decision;
    },
    [FLOW_REGISTRY_STREAM],
  );
  const state = await syncStateFiles(app, [StateFileKind.flow, StateFileKind.deepDive]);
  emitFlowWarnings(app, warnings);
  return checked(FlowStatusEnvelope, flowStatusEnvelope(state, app.now, warnings));
}

/** `flow status` (§9): the most recent flow, its state file rewritten if missing or different; unrecorded Agent Flow runs named. */
export async function flowStatus(app: AppContext): Promise<FlowStatusEnvelope> {
  const warnings = await reconcileFlowFile(app);
  const state = await syncStateFiles(app, [StateFileKind.flow]);
  if (latestFlow(state)?.context.status !== 'active') warnings.push(...(await adoptableFileHints(app)));
  emitFlowWarnings(app, warnings);
  return checked(FlowStatusEnvelope, flowStatusEnvelope(state, app.now, warnings));
}

/** `flow merge` (§6.3): the group's verdict, recorded once both teammates reported; a verdict whatever it is. */
export async function mergeFlow(app: AppContext, input: { parallel_group?: string | undefined }): Promise<FlowMergeEnvelope> {
  const group = input.parallel_group;
  if (group !== undefined && group !== GROUP) throw invalidFlowInput('parallel_group', () => `Unknown parallel group '${group}'. Allowed: ${GROUP}.`);
  for (const warning of await reconcileFlowFile(app)) app.output.warn(warning);
  const { result, appended } = await decideAndAppend(app, (state, versions) => decideFlowMerge({ now: app.now }, { state, versions }));
  if (appended) await syncStateFiles(app, [StateFileKind.flow]);
  return checked(FlowMergeEnvelope, { v: 1, type: 'flow_merge', generated_at: app.now, group: GROUP, ...result });
}
