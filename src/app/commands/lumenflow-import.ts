import type { z } from 'zod';
import { importLumenflow } from '../../integrations/lumenflow/import.js';
import type { AppContext } from '../context.js';
import { checked } from '../envelopes/checked.js';
import { LumenflowImportEnvelope } from '../envelopes/lumenflow.js';
import { workUnitsEnv } from '../work-units-env.js';

export type LumenflowImportEnvelope = z.output<typeof LumenflowImportEnvelope>;

export interface LumenflowImportInput {
  /** The repository (default `.`), relative to `cwd`. */
  repo?: string | undefined;
  /** Where a relative `repo` is resolved from (default: the process's working folder). */
  cwd?: string | undefined;
  /** Decide and report; append nothing. */
  dry_run?: boolean | undefined;
  /** Import the valid files and count the invalid ones, instead of refusing the whole import. */
  skip_invalid?: boolean | undefined;
}

/**
 * `import lumenflow [REPO]`: a whole LumenFlow repository in one batch, only what the log does not
 * hold yet (deciders/lumenflow-import.ts, through the command handler).
 */
export async function importLumenflowRepository(app: AppContext, input: LumenflowImportInput): Promise<LumenflowImportEnvelope> {
  const env = await workUnitsEnv(app);
  const result = await importLumenflow(env, {
    repo: input.repo ?? '.',
    cwd: input.cwd ?? process.cwd(),
    dryRun: input.dry_run === true,
    skipInvalid: input.skip_invalid === true,
  });
  return checked(LumenflowImportEnvelope, { v: 1, type: 'lumenflow_import', generated_at: app.now, ...result });
}
