import type { z } from 'zod';
import { createInitiative, createWu, type InitiativeCreateInput, type WuCreateInput } from '../../work-units/definitions.js';
import { importWuYaml } from '../../work-units/import.js';
import { updateInitiative, type InitiativeUpdateInput } from '../../work-units/initiative-update.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { InitiativeUpdateEnvelope } from '../envelopes/lumenflow.js';
import { InitiativeEnvelope, WuDefinitionEnvelope, WuImportEnvelope } from '../envelopes/work-units.js';
import { workUnitsEnv } from '../work-units-env.js';

/**
 * Defining work units and initiatives (work-units.md §2–§4) for every surface: `wu create`,
 * `wu import`, `initiative create`, `initiative update`. The input is named by its domain fields
 * (`dependencies`, `target_date`, lists as lists); the domain functions (src/work-units/) check it
 * by those names and decide on the fold through the command handler; the envelope is checked here.
 */
export type WuDefinitionEnvelope = z.output<typeof WuDefinitionEnvelope>;
export type WuImportEnvelope = z.output<typeof WuImportEnvelope>;
export type InitiativeEnvelope = z.output<typeof InitiativeEnvelope>;
export type InitiativeUpdateEnvelope = z.output<typeof InitiativeUpdateEnvelope>;

export type { InitiativeCreateInput, InitiativeUpdateInput, WuCreateInput };

/** `wu create`: an upsert; only the fields that differ are recorded. */
export async function defineWorkUnit(app: AppContext, input: WuCreateInput): Promise<WuDefinitionEnvelope> {
  const result = await createWu(await workUnitsEnv(app), input);
  return checked(WuDefinitionEnvelope, { v: 1, type: 'wu_definition', generated_at: app.now, ...result });
}

/** `wu import` of LumenFlow WU YAML: all or nothing; a re-import records only what changed. */
export async function importWorkUnits(app: AppContext, input: { paths: string[] }): Promise<WuImportEnvelope> {
  const result = await importWuYaml(await workUnitsEnv(app), input.paths);
  return checked(WuImportEnvelope, { v: 1, type: 'wu_import', generated_at: app.now, ...result });
}

/** `initiative create`: idempotent when the fields are the same. */
export async function createInitiativeEnvelope(app: AppContext, input: InitiativeCreateInput): Promise<InitiativeEnvelope> {
  const result = await createInitiative(await workUnitsEnv(app), input);
  return checked(InitiativeEnvelope, { v: 1, type: 'initiative', generated_at: app.now, ...result });
}

/** `initiative update`: only the fields that differ are recorded; none differ, nothing. */
export async function updateInitiativeEnvelope(app: AppContext, input: InitiativeUpdateInput): Promise<InitiativeUpdateEnvelope> {
  const result = await updateInitiative(await workUnitsEnv(app), input);
  return checked(InitiativeUpdateEnvelope, { v: 1, type: 'initiative_update', generated_at: app.now, ...result });
}
