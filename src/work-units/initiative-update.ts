import { INITIATIVE_ID_PATTERN } from '../../events/work-units/terms.js';
import { InitiativeFields } from '../../events/work-units/lumenflow.js';
import { BatonError, ErrorCode, invalidField } from '../errors.js';
import { decideUpdateInitiative } from '../../deciders/work-unit-definitions.js';
import { appendedEvents, checkFields, readStreamAndFold, runWorkUnitsCommand, type WorkUnitsEnv } from './env.js';

/**
 * `initiative update INIT [--title …] [--status …] …`: compares the fields given with the
 * initiative's current fields and appends one `initiative.updated` holding only those that differ,
 * or nothing (exit 0) when none do — what a changed initiative YAML file does on import, by hand.
 * The input is named by its domain fields (`target_date`); each surface names them its own way.
 */
export interface InitiativeUpdateInput {
  initiative: string;
  title?: string | undefined;
  slug?: string | undefined;
  status?: string | undefined;
  lanes?: string[] | undefined;
  wus?: string[] | undefined;
  priority?: string | undefined;
  owner?: string | undefined;
  created?: string | undefined;
  target_date?: string | undefined;
}

export interface InitiativeUpdateResult {
  initiative: string;
  result: 'updated' | 'unchanged';
  changed_fields: string[];
  appended: { seq: number; type: string }[];
}

/** The fields `initiative update` changes, in the order a refusal lists them. */
export const INITIATIVE_UPDATE_FIELDS = ['title', 'status', 'slug', 'lanes', 'wus', 'priority', 'owner', 'created', 'target_date'] as const;

/** No field to change: named `fields`, its words listing each field the surface's way. */
function nothingToChange(): BatonError {
  const say = (name: string, ...fields: string[]): string => `${name}: give at least one field to change (${fields.join(', ')})`;
  return new BatonError(
    ErrorCode.INVALID_INPUT,
    say('fields', ...INITIATIVE_UPDATE_FIELDS),
    { field: 'fields' },
    {
      field: 'fields',
      say,
      others: INITIATIVE_UPDATE_FIELDS,
    },
  );
}

export async function updateInitiative(env: WorkUnitsEnv, input: InitiativeUpdateInput): Promise<InitiativeUpdateResult> {
  if (!INITIATIVE_ID_PATTERN.test(input.initiative))
    throw invalidField(`must match ^INIT-[0-9A-Z][0-9A-Z-]*$, got ${JSON.stringify(input.initiative)}`, 'initiative');
  const given: Record<string, unknown> = {};
  for (const key of ['title', 'slug', 'status', 'priority', 'owner', 'created', 'target_date'] as const) {
    const value = input[key];
    if (value !== undefined) given[key] = value.trim();
  }
  if (input.lanes !== undefined) given['lanes'] = [...new Set(input.lanes)];
  if (input.wus !== undefined) given['wus'] = [...new Set(input.wus)];
  if (Object.keys(given).length === 0) throw nothingToChange();
  const fields = checkFields(InitiativeFields, given);
  const stream = `initiative/${input.initiative}`;
  const handled = await runWorkUnitsCommand(env, readStreamAndFold(env, stream), (state) =>
    decideUpdateInitiative({ initiative: input.initiative, given: fields }, state),
  );
  const changedFields = handled.decision!.outcome.changed_fields;
  return {
    initiative: input.initiative,
    result: changedFields.length === 0 ? 'unchanged' : 'updated',
    changed_fields: changedFields,
    appended: appendedEvents(handled.appended),
  };
}
