import { compareWuIds } from '../../../events/work-units/terms.js';
import { isDone } from '../../../projections/work-units/evidence.js';
import { loadWorkUnits } from '../../work-units/env.js';
import type { AppContext } from '../context.js';
import * as storeAccess from '../store-access.js';
import { workUnitsEnv } from '../work-units-env.js';

/**
 * The work unit ids a shell completes (`baton completion`'s scripts ask for them): every defined
 * WU, or with `open` only those not done, in id order. The work-unit fold only (its snapshot, then
 * the events after it), on compiled validators; nothing appended, no probe run.
 */
export async function completionWuIds(app: AppContext, input: { open?: boolean | undefined }): Promise<string[]> {
  app.useCompiledValidation(storeAccess);
  const { state } = await loadWorkUnits(await workUnitsEnv(app));
  return Object.values(state.wus)
    .filter((wu) => wu.defined && !(input.open === true && isDone(wu)))
    .map((wu) => wu.wu_id)
    .sort(compareWuIds);
}
