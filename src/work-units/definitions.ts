import { z } from 'zod';
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
import { invalidField } from '../errors.js';
import { appendedEvents, checkFields, checkWuId, loadWorkUnits, readStreamAndFold, runWorkUnitsCommand, type WorkUnitsEnv } from './env.js';
import { decideCreateInitiative, decideDefineWu, type DefinitionResult } from '../../deciders/work-unit-definitions.js';

/**
 * `initiative create` and `wu create` (work-units.md §2, §3.1): the input checked by its domain
 * names (each surface names them its own way), decided on the folded state, appended with an
 * expected version.
 */

const InitiativeFields = z.strictObject({
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

export interface InitiativeCreateInput {
  initiative: string;
  title?: string | undefined;
  slug?: string | undefined;
  lanes?: string[] | undefined;
}

export async function createInitiative(env: WorkUnitsEnv, input: InitiativeCreateInput): Promise<InitiativeResult> {
  const fields = checkFields(InitiativeFields, { initiative: input.initiative, title: input.title, slug: input.slug, lanes: input.lanes });
  const lanes = [...new Set((fields.lanes ?? []).map((l) => l.trim()))];
  const wanted = { initiative: fields.initiative, title: fields.title.trim(), slug: fields.slug ?? null, lanes };
  const handled = await runWorkUnitsCommand(
    env,
    async () => (await loadWorkUnits(env)).state,
    (state) => decideCreateInitiative(wanted, state),
  );
  return { ...wanted, created: handled.decision!.outcome.created, appended: appendedEvents(handled.appended) };
}

const WuFields = z.strictObject({
  wu: wuId,
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

/** `wu create`'s input by its domain names (the CLI's `--deps` is `dependencies`, its `WU` is `wu`). */
export interface WuCreateInput {
  wu: string;
  initiative?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
  acceptance?: string[] | undefined;
  lane?: string | undefined;
  type?: string | undefined;
  priority?: string | undefined;
  dependencies?: string[] | undefined;
  code_paths?: string[] | undefined;
}

export { DefinitionResult, defaultOf } from '../../deciders/work-unit-definitions.js';

export interface WuCreateResult {
  wu_id: string;
  result: DefinitionResult;
  changed_fields: string[];
  appended: { seq: number; type: string }[];
}

export async function createWu(env: WorkUnitsEnv, input: WuCreateInput): Promise<WuCreateResult> {
  checkWuId(input.wu);
  const { wu, initiative, title, description, acceptance, lane, type, priority, dependencies, code_paths } = input;
  const fields = checkFields(WuFields, { wu, initiative, title, description, acceptance, lane, type, priority, dependencies, code_paths });
  if (fields.dependencies?.includes(fields.wu)) throw invalidField(`${fields.wu} may not depend on itself`, 'dependencies');
  const given: DefinitionFields & { lane: string } = {
    initiative: fields.initiative,
    ...(fields.title !== undefined ? { title: fields.title.trim() } : {}),
    ...(fields.description !== undefined ? { description: fields.description } : {}),
    ...(fields.acceptance !== undefined ? { acceptance: fields.acceptance.map((a) => a.trim()) } : {}),
    lane: fields.lane.trim(),
    ...(fields.type !== undefined ? { type: fields.type } : {}),
    ...(fields.priority !== undefined ? { priority: fields.priority } : {}),
    ...(fields.dependencies !== undefined ? { dependencies: [...new Set(fields.dependencies)].sort(compareWuIds) } : {}),
    ...(fields.code_paths !== undefined ? { code_paths: [...new Set(fields.code_paths)] } : {}),
  };
  const handled = await runWorkUnitsCommand(env, readStreamAndFold(env, `wu/${fields.wu}`), (state) =>
    decideDefineWu({ wuId: fields.wu, initiative: fields.initiative, given }, state),
  );
  return { wu_id: fields.wu, ...handled.decision!.outcome, appended: appendedEvents(handled.appended) };
}
