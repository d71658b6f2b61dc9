import type { z } from 'zod';
import { WU_ID_PATTERN } from '../../../events/coordination/identities.js';
import { checkOverrideFlags, recordOverride, signalGate } from '../../coordination/prep.js';
import { invalidField } from '../../errors.js';
import { checkClaimed, checkWorkspace } from '../../work-units/prep.js';
import type { AppContext } from '../context.js';
import { coordinationEnv } from '../coordination-env.js';
import { checked } from '../envelopes/checked.js';
import { WuPrepEnvelope } from '../envelopes/coordination.js';
import { workUnitsEnv } from '../work-units-env.js';
import { observeInto, prepareObservation } from '../../work-units/observe.js';
import { runProjections } from '../../store/projection-runner.js';
import { workUnitsStateProjection } from '../../../projections/work-units/fold.js';
import { coordinationStateProjection } from '../../../projections/coordination/roster.js';

export type WuPrepEnvelope = z.output<typeof WuPrepEnvelope>;

export interface WuPrepInput {
  wu: string;
  /** Waive unread directed signals (needs `reason`; recorded as `wu.prep_overridden`). */
  allow_unread_signals?: boolean | undefined;
  reason?: string | undefined;
}

/**
 * `wu prep` (work-units.md §13), checks in order, stopping at the first failure: input, the WU's
 * state, the directed-signal gate, contamination, the prep commands. The override is recorded only
 * once everything passed; prep never changes the WU's state.
 */
export async function prepWorkUnit(app: AppContext, input: WuPrepInput): Promise<WuPrepEnvelope> {
  const { wu, reason } = input;
  if (!WU_ID_PATTERN.test(wu)) throw invalidField(`must match ^WU-[0-9]{1,9}$, got "${wu}"`, 'wu');
  const allow = input.allow_unread_signals === true;
  checkOverrideFlags({ allow, reason });
  const wuEnv = await workUnitsEnv(app);
  const env = await coordinationEnv(app);
  const compareYaml = await prepareObservation(wuEnv);
  // One pass over the log answers every check: the WU's state, the signal gate and the override's acting session.
  const [units, coordination] = await runProjections(wuEnv.store, [workUnitsStateProjection, coordinationStateProjection] as const, {
    catalog: wuEnv.catalog,
    now: wuEnv.now,
    ...(wuEnv.cacheDir !== undefined ? { cacheDir: wuEnv.cacheDir } : {}),
  });
  const claimed = await checkClaimed(wuEnv, wu, units.state);
  const outcome = await signalGate(env, wu, { allow, reason }, coordination.state);
  const observed = await observeInto(wuEnv, units, compareYaml, { append: true });
  const later = await checkWorkspace(wuEnv, wu, observed.state);
  const overridden = outcome.overridden_signal_ids.length > 0;
  if (overridden) await recordOverride(env, wu, outcome, reason!, coordination.state);
  const detail = overridden ? `overridden: ${outcome.overridden_signal_ids.join(', ')} (${reason!})` : outcome.detail;
  return checked(WuPrepEnvelope, {
    v: 1,
    type: 'wu_prep',
    generated_at: app.now,
    wu_id: wu,
    passed: true,
    reader_identity: outcome.reader_identity,
    checks: [claimed, { name: 'signals', passed: true, detail }, ...later],
    overridden_signal_ids: outcome.overridden_signal_ids,
  });
}
