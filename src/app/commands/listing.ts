import type { z } from 'zod';
import { INITIATIVE_ID_PATTERN, ORCHESTRATION_STATES, SLUG_PATTERN, type OrchestrationState } from '../../../events/work-units/terms.js';
import { explainWu } from '../../../projections/work-units/explain-view.js';
import { initiativeIsKnown, listInitiatives, listWus, resolveInitiativeRef, showInitiative, showWu } from '../../../projections/work-units/listing.js';
import { BatonError, ErrorCode, invalidField } from '../../errors.js';
import { checkWuId, loadWorkUnits } from '../../work-units/env.js';
import { loadObserved } from '../../work-units/observe.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { InitiativeListEnvelope, InitiativeShowEnvelope, WuListEnvelope, WuShowEnvelope } from '../envelopes/listing.js';
import { WuExplanationEnvelope } from '../envelopes/work-units.js';
import { workUnitsEnv } from '../work-units-env.js';

/**
 * `wu list | show`, `initiative list | show`: the log as recorded, read through the work-unit
 * fold's snapshot; nothing appended, no probe run (`orchestrate status` and `wu explain` observe).
 * Every input is checked by its domain name before the log is read: bad input reads nothing.
 */
export type WuListEnvelope = z.output<typeof WuListEnvelope>;
export type WuShowEnvelope = z.output<typeof WuShowEnvelope>;
export type InitiativeListEnvelope = z.output<typeof InitiativeListEnvelope>;
export type InitiativeShowEnvelope = z.output<typeof InitiativeShowEnvelope>;
export type WuExplanationEnvelope = z.output<typeof WuExplanationEnvelope>;

export interface WuListInput {
  /** An initiative id or slug: only its members. */
  initiative?: string | undefined;
  state?: string | undefined;
  lane?: string | undefined;
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

function checkInitiativeRef(value: string): string {
  if (!INITIATIVE_ID_PATTERN.test(value) && !SLUG_PATTERN.test(value)) {
    throw invalidField(
      `must be an initiative id (${INITIATIVE_ID_PATTERN.source}) or a slug (${SLUG_PATTERN.source}), got ${JSON.stringify(value)}`,
      'initiative',
    );
  }
  return value;
}

/**
 * The state filter: an orchestration state, or `ready`, LumenFlow's word for an unclaimed WU whose
 * dependencies are done, read as `eligible` (as the status documents' legacy `ready` is, §11).
 */
function checkState(value: string): OrchestrationState {
  if (value === 'ready') return 'eligible';
  if (!(ORCHESTRATION_STATES as readonly string[]).includes(value))
    throw invalidField(`must be one of ${ORCHESTRATION_STATES.join(', ')} (ready = eligible), got ${JSON.stringify(value)}`, 'state');
  return value as OrchestrationState;
}

function checkLane(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > 100) throw invalidField('must be 1–100 characters after trimming', 'lane');
  if (CONTROL_CHARS.test(value)) throw invalidField('must not contain control characters', 'lane');
  if (value.includes(',')) throw invalidField('must not contain a comma', 'lane');
  return trimmed;
}

function unknownInitiative(id: string): BatonError {
  return new BatonError(ErrorCode.UNKNOWN_ID, `Initiative ${id} not found`, { initiative: id });
}

function unknownWu(wuId: string): BatonError {
  return new BatonError(ErrorCode.UNKNOWN_ID, `WU ${wuId} not found`, { wu_id: wuId });
}

/** `wu list`: one row per WU, filtered by initiative, orchestration state and lane. */
export async function listWorkUnits(app: AppContext, input: WuListInput): Promise<WuListEnvelope> {
  const initiativeRef = input.initiative === undefined ? undefined : checkInitiativeRef(input.initiative);
  const state = input.state === undefined ? undefined : checkState(input.state);
  const lane = input.lane === undefined ? undefined : checkLane(input.lane);
  const env = await workUnitsEnv(app);
  const { state: fold } = await loadWorkUnits(env);
  let initiative: string | undefined;
  if (initiativeRef !== undefined) {
    initiative = resolveInitiativeRef(fold, initiativeRef);
    if (!initiativeIsKnown(fold, initiative)) throw unknownInitiative(initiativeRef);
  }
  const wus = listWus(fold, env.config, env.now, { initiative, state, lane });
  return checked(WuListEnvelope, {
    v: 1,
    type: 'wu_list',
    generated_at: env.now,
    filters: { initiative: initiative ?? null, state: state ?? null, lane: lane ?? null },
    count: wus.length,
    wus,
  });
}

/** `wu show`: one WU's definition, orchestration state, claim, last checkpoint and stamp. */
export async function showWorkUnit(app: AppContext, input: { wu: string }): Promise<WuShowEnvelope> {
  checkWuId(input.wu);
  const env = await workUnitsEnv(app);
  const { state } = await loadWorkUnits(env);
  const detail = showWu(state, input.wu, env.config, env.now);
  if (detail === null) throw unknownWu(input.wu);
  return checked(WuShowEnvelope, { v: 1, type: 'wu_detail', generated_at: env.now, ...detail });
}

/** `initiative list`: every initiative with its WUs counted by orchestration state. */
export async function listInitiativesEnvelope(app: AppContext): Promise<InitiativeListEnvelope> {
  const env = await workUnitsEnv(app);
  const { state } = await loadWorkUnits(env);
  const initiatives = listInitiatives(state, env.config, env.now);
  return checked(InitiativeListEnvelope, { v: 1, type: 'initiative_list', generated_at: env.now, count: initiatives.length, initiatives });
}

/** `initiative show`: one initiative (by id or slug) and every member WU with its state. */
export async function showInitiativeEnvelope(app: AppContext, input: { initiative: string }): Promise<InitiativeShowEnvelope> {
  checkInitiativeRef(input.initiative);
  const env = await workUnitsEnv(app);
  const { state } = await loadWorkUnits(env);
  const detail = showInitiative(state, input.initiative, env.config, env.now);
  if (detail === null) throw unknownInitiative(input.initiative);
  return checked(InitiativeShowEnvelope, { v: 1, type: 'initiative_detail', generated_at: env.now, ...detail });
}

/** `wu explain` (work-units.md §14): the probes run, then the rule and the predicates with their events. */
export async function explainWorkUnit(app: AppContext, input: { wu: string }): Promise<WuExplanationEnvelope> {
  checkWuId(input.wu);
  const env = await workUnitsEnv(app);
  const { state } = await loadObserved(env, { append: true });
  const explanation = explainWu(state, input.wu, env.config, env.now);
  if (explanation === null) throw unknownWu(input.wu);
  return checked(WuExplanationEnvelope, explanation);
}
