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
import type { DefinitionFields } from '../../events/work-units/definition.js';
import { invalidInput } from '../errors.js';
import { appendedEvents, checkWuId, loadWorkUnits, readStreamAndFold, runWorkUnitsCommand, type WorkUnitsEnv } from './env.js';
import { decideCreateInitiative, decideDefineWu, type DefinitionResult } from '../../deciders/work-unit-definitions.js';

/** `initiative create` and `wu create` (work-units.md §2, §3.1): decide on the folded state, append with an expected version. */

/** Comma-separated list flag → trimmed, non-empty items. */
export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
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

export async function createInitiative(
  env: WorkUnitsEnv,
  input: { initiative: string; title?: string; slug?: string; lanes?: string },
): Promise<InitiativeResult> {
  const flags = parseFlags(
    InitiativeFlags,
    { initiative: input.initiative, title: input.title, slug: input.slug, lanes: splitList(input.lanes) },
    { initiative: 'INIT', title: '--title', slug: '--slug', lanes: '--lanes' },
  );
  const lanes = [...new Set((flags.lanes ?? []).map((l) => l.trim()))];
  const wanted = { initiative: flags.initiative, title: flags.title.trim(), slug: flags.slug ?? null, lanes };
  const handled = await runWorkUnitsCommand(
    env,
    async () => (await loadWorkUnits(env)).state,
    (state) => decideCreateInitiative(wanted, state),
  );
  return { ...wanted, created: handled.decision!.outcome.created, appended: appendedEvents(handled.appended) };
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
  wu_id: 'WU',
  initiative: '--initiative',
  title: '--title',
  description: '--description',
  acceptance: '--acceptance',
  lane: '--lane',
  type: '--type',
  priority: '--priority',
  dependencies: '--deps',
  code_paths: '--code-paths',
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

export { DefinitionResult, defaultOf } from '../../deciders/work-unit-definitions.js';

export interface WuCreateResult {
  wu_id: string;
  result: DefinitionResult;
  changed_fields: string[];
  appended: { seq: number; type: string }[];
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
  const given: DefinitionFields & { lane: string } = {
    initiative: flags.initiative,
    ...(flags.title !== undefined ? { title: flags.title.trim() } : {}),
    ...(flags.description !== undefined ? { description: flags.description } : {}),
    ...(flags.acceptance !== undefined ? { acceptance: flags.acceptance.map((a) => a.trim()) } : {}),
    lane: flags.lane.trim(),
    ...(flags.type !== undefined ? { type: flags.type } : {}),
    ...(flags.priority !== undefined ? { priority: flags.priority } : {}),
    ...(flags.dependencies !== undefined ? { dependencies: [...new Set(flags.dependencies)].sort(compareWuIds) } : {}),
    ...(flags.code_paths !== undefined ? { code_paths: [...new Set(flags.code_paths)] } : {}),
  };
  const handled = await runWorkUnitsCommand(env, readStreamAndFold(env, `wu/${flags.wu_id}`), (state) =>
    decideDefineWu({ wuId: flags.wu_id, initiative: flags.initiative, given }, state),
  );
  return { wu_id: flags.wu_id, ...handled.decision!.outcome, appended: appendedEvents(handled.appended) };
}
