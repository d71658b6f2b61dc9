import { z } from 'zod';
import { describeZodIssues } from '../../events/validation.js';
import {
  codePath,
  compareWuIds,
  initiativeId,
  initiativeRef,
  initiativeSlug,
  laneName,
  PRIORITIES,
  requiredText,
  text,
  WU_TYPES,
  wuId,
} from '../../events/work-units/vocabulary.js';
import { CREATE_FIELDS, type DefinitionFields } from '../../events/work-units/definition.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';
import { BatonError, ErrorCode, invalidInput } from '../errors.js';
import { appendAs, appendedOf, checkWuId, loadWorkUnits, type WorkUnitsEnv } from './env.js';
import { WorkUnitErrorCode } from './errors.js';

/** `initiative create` and `wu create` (work-units.md §2, §3.1): decide on the folded state, append with an expected version. */

/** Comma-separated list flag → trimmed, non-empty items. */
export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function parseFlags<S extends z.ZodType>(schema: S, input: unknown, flagNames: Record<string, string>): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = describeZodIssues(parsed.error).map((p) => {
    const [head, ...rest] = p.field.split('.');
    return { ...p, field: [flagNames[head!] ?? head, ...rest].join('.') };
  });
  throw invalidInput(problems);
}

const InitiativeFlags = z.strictObject({
  initiative: initiativeId,
  title: requiredText(200),
  slug: initiativeSlug.optional(),
  lanes: z.array(laneName).optional(),
});

export interface InitiativeResult {
  initiative: string;
  title: string;
  slug: string | null;
  lanes: string[];
  created: boolean;
  appended: { seq: number; type: string }[];
}

export async function createInitiative(env: WorkUnitsEnv, input: { initiative: string; title?: string; slug?: string; lanes?: string }): Promise<InitiativeResult> {
  const flags = parseFlags(
    InitiativeFlags,
    { initiative: input.initiative, title: input.title, slug: input.slug, lanes: splitList(input.lanes) },
    { initiative: 'INIT', title: '--title', slug: '--slug', lanes: '--lanes' },
  );
  const lanes = [...new Set((flags.lanes ?? []).map((l) => l.trim()))];
  const wanted = { initiative: flags.initiative, title: flags.title.trim(), slug: flags.slug ?? null, lanes };
  const { state } = await loadWorkUnits(env);
  const existing = state.initiatives[flags.initiative];
  if (existing !== undefined) {
    const same = existing.title === wanted.title && existing.slug === wanted.slug && JSON.stringify(existing.lanes) === JSON.stringify(wanted.lanes);
    if (same) return { ...wanted, created: false, appended: [] };
    throw new BatonError(WorkUnitErrorCode.ALREADY_EXISTS, `Initiative ${flags.initiative} already exists with different fields`, { initiative: flags.initiative });
  }
  if (wanted.slug !== null && state.slugs[wanted.slug] !== undefined) {
    throw new BatonError(WorkUnitErrorCode.ALREADY_EXISTS, `--slug: ${wanted.slug} is already the slug of ${state.slugs[wanted.slug]}`, { field: '--slug' });
  }
  const stream = `initiative/${flags.initiative}`;
  const result = await appendAs(env, [{ type: 'initiative.created', stream, data: wanted }], { [stream]: 'no_stream' });
  return { ...wanted, created: true, appended: appendedOf(result) };
}

const WuFlags = z.strictObject({
  wu_id: wuId,
  initiative: initiativeRef,
  title: requiredText(200).optional(),
  description: text(20_000).optional(),
  acceptance: z.array(requiredText(2000)).optional(),
  lane: laneName,
  type: z.enum(WU_TYPES, `must be one of ${WU_TYPES.join(', ')}`).optional(),
  priority: z.enum(PRIORITIES, `must be one of ${PRIORITIES.join(', ')}`).optional(),
  dependencies: z.array(wuId).optional(),
  code_paths: z.array(codePath).optional(),
});

const WU_FLAG_NAMES: Record<string, string> = {
  wu_id: 'WU', initiative: '--initiative', title: '--title', description: '--description', acceptance: '--acceptance', lane: '--lane',
  type: '--type', priority: '--priority', dependencies: '--deps', code_paths: '--code-paths',
};

export interface WuCreateInput {
  wuId: string;
  initiative?: string;
  title?: string;
  description?: string;
  acceptance?: string[];
  lane?: string;
  type?: string;
  priority?: string;
  deps?: string;
  codePaths?: string;
}

export const DefinitionResult = { defined: 'defined', updated: 'updated', unchanged: 'unchanged' } as const;
export type DefinitionResult = (typeof DefinitionResult)[keyof typeof DefinitionResult];

export interface WuCreateResult {
  wu_id: string;
  result: DefinitionResult;
  changed_fields: string[];
  appended: { seq: number; type: string }[];
}

function resolveInitiative(state: WorkUnitsState, ref: string): string | undefined {
  if (state.initiatives[ref] !== undefined) return ref;
  return state.slugs[ref];
}

export async function createWu(env: WorkUnitsEnv, input: WuCreateInput): Promise<WuCreateResult> {
  checkWuId(input.wuId);
  const flags = parseFlags(
    WuFlags,
    {
      wu_id: input.wuId,
      initiative: input.initiative,
      title: input.title,
      description: input.description,
      acceptance: input.acceptance,
      lane: input.lane,
      type: input.type,
      priority: input.priority,
      dependencies: splitList(input.deps),
      code_paths: splitList(input.codePaths),
    },
    WU_FLAG_NAMES,
  );
  if (flags.dependencies?.includes(flags.wu_id)) throw invalidInput(`${flags.wu_id} may not depend on itself`, '--deps');
  const stream = `wu/${flags.wu_id}`;
  const version = await env.store.streamVersion(stream);
  const { state } = await loadWorkUnits(env);
  const initiative = resolveInitiative(state, flags.initiative);
  if (initiative === undefined) throw new BatonError(ErrorCode.UNKNOWN_ID, `--initiative: Initiative ${flags.initiative} not found`, { field: '--initiative' });
  const lane = flags.lane.trim();
  const lanes = state.initiatives[initiative]!.lanes;
  if (lanes.length > 0 && !lanes.includes(lane)) throw invalidInput(`lane "${lane}" is not one of ${initiative}'s lanes (${lanes.join(', ')})`, '--lane');

  const given: DefinitionFields = {
    initiative: flags.initiative,
    ...(flags.title !== undefined ? { title: flags.title.trim() } : {}),
    ...(flags.description !== undefined ? { description: flags.description } : {}),
    ...(flags.acceptance !== undefined ? { acceptance: flags.acceptance.map((a) => a.trim()) } : {}),
    lane,
    ...(flags.type !== undefined ? { type: flags.type } : {}),
    ...(flags.priority !== undefined ? { priority: flags.priority } : {}),
    ...(flags.dependencies !== undefined ? { dependencies: [...new Set(flags.dependencies)].sort(compareWuIds) } : {}),
    ...(flags.code_paths !== undefined ? { code_paths: [...new Set(flags.code_paths)] } : {}),
  };
  const wu = state.wus[flags.wu_id];
  if (wu === undefined || !wu.defined) {
    const data = {
      wu_id: flags.wu_id,
      initiative: flags.initiative,
      title: given.title ?? flags.wu_id,
      description: given.description ?? '',
      acceptance: given.acceptance ?? [],
      lane,
      type: given.type ?? 'feature',
      priority: given.priority ?? 'P2',
      dependencies: given.dependencies ?? [],
      code_paths: given.code_paths ?? [],
    };
    const result = await appendAs(env, [{ type: 'wu.defined', stream, data }], { [stream]: version === 0 ? 'no_stream' : version });
    return { wu_id: flags.wu_id, result: DefinitionResult.defined, changed_fields: [...CREATE_FIELDS], appended: appendedOf(result) };
  }
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(given)) {
    const current = (wu.def as Record<string, unknown>)[field] ?? defaultOf(field, flags.wu_id);
    if (JSON.stringify(current) !== JSON.stringify(value)) changed[field] = value;
  }
  const changedFields = Object.keys(changed);
  if (changedFields.length === 0) return { wu_id: flags.wu_id, result: DefinitionResult.unchanged, changed_fields: [], appended: [] };
  const result = await appendAs(env, [{ type: 'wu.updated', stream, data: { wu_id: flags.wu_id, changed } }], { [stream]: version });
  return { wu_id: flags.wu_id, result: DefinitionResult.updated, changed_fields: changedFields, appended: appendedOf(result) };
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
