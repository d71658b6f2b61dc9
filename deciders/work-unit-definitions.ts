import type { DefinitionFields } from '../events/work-units/definition.js';
import { CREATE_FIELDS } from '../events/work-units/terms.js';
import { canonicalValue } from '../events/canonical.js';
import { stepWu } from '../machines/work-unit-steps.js';
import type { WorkUnitsState } from '../projections/work-units/state.js';
import type { Decision } from './decision.js';
import { ErrorCode, WorkUnitErrorCode } from './error-codes.js';
import { Refusal, refuseField, refuseInput } from './refusal.js';
import { knownWu, type WuCommandState } from './work-units.js';
import { requireFinisher } from './claim-holder.js';

/**
 * Defining initiatives and WUs, and `wu done` (work-units.md §2, §3.1, §12), as deciders: the
 * flags are checked by the caller; these read the fold and answer the event to append.
 */

export interface CreateInitiative {
  initiative: string;
  title: string;
  slug: string | null;
  lanes: string[];
}

/** `initiative create`: the same definition again appends nothing; a different one is ALREADY_EXISTS. */
export function decideCreateInitiative(command: CreateInitiative, state: WorkUnitsState): Decision<{ created: boolean }> {
  const existing = state.initiatives[command.initiative];
  if (existing !== undefined) {
    const same = existing.title === command.title && existing.slug === command.slug && JSON.stringify(existing.lanes) === JSON.stringify(command.lanes);
    if (same) return { events: [], expected: {}, outcome: { created: false } };
    throw new Refusal(WorkUnitErrorCode.ALREADY_EXISTS, `Initiative ${command.initiative} already exists with different fields`, {
      initiative: command.initiative,
    });
  }
  if (command.slug !== null && state.slugs[command.slug] !== undefined) {
    throw refuseField(WorkUnitErrorCode.ALREADY_EXISTS, 'slug', (name) => `${name}: ${command.slug} is already the slug of ${state.slugs[command.slug!]}`);
  }
  const stream = `initiative/${command.initiative}`;
  const data = { initiative: command.initiative, title: command.title, slug: command.slug, lanes: command.lanes };
  return { events: [{ type: 'initiative.created', stream, data }], expected: { [stream]: 'no_stream' }, outcome: { created: true } };
}

/** A field's value when the definition does not carry it (§3.1 defaults). */
export function defaultOf(field: string, wuIdValue: string): unknown {
  switch (field) {
    case 'title':
      return wuIdValue;
    case 'description':
      return '';
    case 'acceptance':
    case 'dependencies':
    case 'blocked_by':
    case 'blocks':
    case 'code_paths':
    case 'labels':
      return [];
    case 'type':
      return 'feature';
    case 'priority':
      return 'P2';
    default:
      return null;
  }
}

export const DefinitionResult = { defined: 'defined', updated: 'updated', unchanged: 'unchanged' } as const;
export type DefinitionResult = (typeof DefinitionResult)[keyof typeof DefinitionResult];

export interface DefineWu {
  wuId: string;
  /** The initiative reference as given (an id or a slug). */
  initiative: string;
  /** The fields the command gives (lane trimmed, lists de-duplicated). */
  given: DefinitionFields & { lane: string };
}

function resolveInitiative(state: WorkUnitsState, ref: string): string | undefined {
  if (state.initiatives[ref] !== undefined) return ref;
  return state.slugs[ref];
}

/**
 * `wu create`: the first one defines the WU with §3.1's defaults; a later one appends only the fields
 * that differ (`wu.updated`), or nothing.
 */
export function decideDefineWu(command: DefineWu, state: WuCommandState): Decision<{ result: DefinitionResult; changed_fields: string[] }> {
  const { wuId, given } = command;
  const initiative = resolveInitiative(state.fold, command.initiative);
  if (initiative === undefined) throw refuseField(ErrorCode.UNKNOWN_ID, 'initiative', (name) => `${name}: Initiative ${command.initiative} not found`);
  const lanes = state.fold.initiatives[initiative]!.lanes;
  if (lanes.length > 0 && !lanes.includes(given.lane))
    throw refuseInput(`lane "${given.lane}" is not one of ${initiative}'s lanes (${lanes.join(', ')})`, 'lane');
  const stream = `wu/${wuId}`;
  const wu = state.fold.wus[wuId];
  if (wu === undefined || !wu.defined) {
    const data = {
      wu_id: wuId,
      initiative: command.initiative,
      title: given.title ?? wuId,
      description: given.description ?? '',
      acceptance: given.acceptance ?? [],
      lane: given.lane,
      type: given.type ?? 'feature',
      priority: given.priority ?? 'P2',
      dependencies: given.dependencies ?? [],
      code_paths: given.code_paths ?? [],
    };
    return {
      events: [{ type: 'wu.defined', stream, data }],
      expected: { [stream]: state.version === 0 ? 'no_stream' : state.version },
      // The fields given (the rest took their defaults): what the command set, not what it left alone.
      outcome: { result: DefinitionResult.defined, changed_fields: CREATE_FIELDS.filter((f) => given[f] !== undefined) },
    };
  }
  const changed: Record<string, unknown> = {};
  const current: Record<string, unknown> = wu.def;
  for (const [field, value] of Object.entries(given)) {
    if (JSON.stringify(current[field] ?? defaultOf(field, wuId)) !== JSON.stringify(value)) changed[field] = value;
  }
  const changedFields = Object.keys(changed);
  if (changedFields.length === 0) return { events: [], expected: {}, outcome: { result: DefinitionResult.unchanged, changed_fields: [] } };
  return {
    events: [{ type: 'wu.updated', stream, data: { wu_id: wuId, changed } }],
    expected: { [stream]: state.version },
    outcome: { result: DefinitionResult.updated, changed_fields: changedFields },
  };
}

export interface DoneWu {
  wuId: string;
  /** Today (YYYY-MM-DD), the stamp's completion date. */
  today: string;
  /** A valid stamp file is on disk now (read by the caller before deciding). */
  stampFileValid: boolean;
  stampPath: string;
  /** Who finishes: the holder, or an orchestrator once the worker returned or the lease lapsed. */
  session: string | null;
  actor: string;
  now: string;
}

/** What `wu done` leaves: the stamp's title and date, and whether a valid stamp existed already. */
export interface DoneOutcome {
  title: string;
  completed_date: string;
  already_exists: boolean;
  /** True when the WU was stamped before this command (nothing appended). */
  stamped_before: boolean;
}

/** `wu done` (§12): `wu.stamped` once; done by a valid stamp file or a pickup is enough to stamp. */
export function decideDone(command: DoneWu, state: WuCommandState): Decision<DoneOutcome> {
  const wu = knownWu(state.fold, command.wuId);
  if (wu.stamped !== null) {
    return {
      events: [],
      expected: {},
      outcome: { title: wu.stamped.title, completed_date: wu.stamped.completed_date, already_exists: true, stamped_before: true },
    };
  }
  const fileValid = command.stampFileValid || (wu.stamp_file?.present === true && wu.stamp_file.valid);
  const lifecycle = fileValid ? { ...wu.lifecycle, stamp_file: true } : wu.lifecycle;
  if (stepWu(lifecycle, { type: 'STAMP' }) === null) {
    throw new Refusal(ErrorCode.ILLEGAL_TRANSITION, `wu done is not allowed while ${command.wuId} is ${wu.lifecycle.state} (claim it first)`, {
      wu_id: command.wuId,
      state: wu.lifecycle.state,
    });
  }
  const finishedFor = requireFinisher(state.fold, wu, command, command.now, 'done');
  const title = wu.def.title ?? command.wuId;
  const stream = `wu/${command.wuId}`;
  const data = {
    wu_id: command.wuId,
    title,
    completed_date: command.today,
    stamp_path: command.stampPath,
    ...(finishedFor !== null ? { finished_for: finishedFor } : {}),
  };
  return {
    events: [{ type: 'wu.stamped', stream, data }],
    expected: { [stream]: state.version },
    outcome: { title, completed_date: command.today, already_exists: fileValid, stamped_before: false },
  };
}

export interface UpdateInitiative {
  initiative: string;
  /** The checked fields the command gives. */
  given: Record<string, unknown>;
}

/**
 * `initiative update`: only the fields that differ from the initiative's current ones are
 * appended, or nothing; a slug another initiative holds is ALREADY_EXISTS.
 */
export function decideUpdateInitiative(command: UpdateInitiative, state: WuCommandState): Decision<{ changed_fields: string[] }> {
  const record = state.fold.initiatives[command.initiative];
  if (record === undefined)
    throw refuseField(ErrorCode.UNKNOWN_ID, 'initiative', (name) => `${name}: Initiative ${command.initiative} not found`, { initiative: command.initiative });
  const current: Record<string, unknown> = { ...(record.fields ?? {}), title: record.title, slug: record.slug, lanes: record.lanes };
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(command.given)) if (canonicalValue(current[key] ?? null) !== canonicalValue(value)) changed[key] = value;
  const slug = changed['slug'];
  if (typeof slug === 'string' && state.fold.slugs[slug] !== undefined && state.fold.slugs[slug] !== command.initiative) {
    throw refuseField(WorkUnitErrorCode.ALREADY_EXISTS, 'slug', (name) => `${name}: ${slug} is already the slug of ${state.fold.slugs[slug]}`);
  }
  const changedFields = Object.keys(changed);
  if (changedFields.length === 0) return { events: [], expected: {}, outcome: { changed_fields: [] } };
  const stream = `initiative/${command.initiative}`;
  return {
    events: [{ type: 'initiative.updated', stream, data: { initiative: command.initiative, changed } }],
    expected: { [stream]: state.version },
    outcome: { changed_fields: changedFields },
  };
}
