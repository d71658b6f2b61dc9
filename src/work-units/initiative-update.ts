import { INITIATIVE_ID_PATTERN } from '../../events/work-units/terms.js';
import { InitiativeFields } from '../../events/work-units/lumenflow.js';
import { describeZodIssues } from '../../events/validation.js';
import { invalidInput } from '../errors.js';
import { decideUpdateInitiative } from '../../deciders/work-unit-definitions.js';
import { splitList } from './definitions.js';
import { appendedEvents, readStreamAndFold, runWorkUnitsCommand, type WorkUnitsEnv } from './env.js';

/**
 * `initiative update INIT [--title …] [--status …] …`: compares the flags given with the
 * initiative's current fields and appends one `initiative.updated` holding only those that differ,
 * or nothing (exit 0) when none do — what a changed initiative YAML file does on import, by hand.
 */
export interface InitiativeUpdateInput {
  initiative: string;
  title?: string;
  slug?: string;
  status?: string;
  lanes?: string;
  wus?: string;
  priority?: string;
  owner?: string;
  created?: string;
  targetDate?: string;
}

export interface InitiativeUpdateResult {
  initiative: string;
  result: 'updated' | 'unchanged';
  changed_fields: string[];
  appended: { seq: number; type: string }[];
}

const FLAG_OF: Record<string, string> = {
  title: '--title',
  slug: '--slug',
  status: '--status',
  lanes: '--lanes',
  wus: '--wus',
  priority: '--priority',
  owner: '--owner',
  created: '--created',
  target_date: '--target-date',
};

export async function updateInitiative(env: WorkUnitsEnv, input: InitiativeUpdateInput): Promise<InitiativeUpdateResult> {
  if (!INITIATIVE_ID_PATTERN.test(input.initiative))
    throw invalidInput(`must match ^INIT-[0-9A-Z][0-9A-Z-]*$, got ${JSON.stringify(input.initiative)}`, 'INIT');
  const given: Record<string, unknown> = {};
  const text = (key: string, v: string | undefined): void => {
    if (v !== undefined) given[key] = v.trim();
  };
  text('title', input.title);
  text('slug', input.slug);
  text('status', input.status);
  text('priority', input.priority);
  text('owner', input.owner);
  text('created', input.created);
  text('target_date', input.targetDate);
  if (input.lanes !== undefined) given['lanes'] = [...new Set(splitList(input.lanes))];
  if (input.wus !== undefined) given['wus'] = [...new Set(splitList(input.wus))];
  if (Object.keys(given).length === 0)
    throw invalidInput('give at least one field to change (--title, --status, --slug, --lanes, --wus, --priority, --owner, --created, --target-date)', 'flags');
  const parsed = InitiativeFields.safeParse(given);
  if (!parsed.success) {
    throw invalidInput(
      describeZodIssues(parsed.error).map((p) => {
        const [head, ...rest] = p.field.split('.');
        return { ...p, field: [FLAG_OF[head!] ?? head, ...rest].join('.') };
      }),
    );
  }
  const stream = `initiative/${input.initiative}`;
  const handled = await runWorkUnitsCommand(env, readStreamAndFold(env, stream), (state) =>
    decideUpdateInitiative({ initiative: input.initiative, given: parsed.data }, state),
  );
  const changedFields = handled.decision!.outcome.changed_fields;
  return {
    initiative: input.initiative,
    result: changedFields.length === 0 ? 'unchanged' : 'updated',
    changed_fields: changedFields,
    appended: appendedEvents(handled.appended),
  };
}
