import { WU_ID_PATTERN } from '../../../events/coordination/identities.js';
import { checkOverrideFlags, recordOverride, signalGate } from '../../coordination/prep.js';
import { invalidInput } from '../../errors.js';
import { checkClaimed, checkWorkspace } from '../../work-units/prep.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../../app/coordination-env.js';
import { WuPrepEnvelope } from '../../app/envelopes/coordination.js';
import { workUnitsEnv } from '../../app/work-units-env.js';

/**
 * `wu prep` (work-units.md §13), checks in order, stopping at the first failure: input, the WU's
 * state, the directed-signal gate, contamination, the prep commands. The override is recorded only
 * once everything passed; prep never changes the WU's state.
 */
export async function wuPrep(ctx: CommandContext, wuId: string, options: { allowUnreadSignals?: boolean; reason?: string }): Promise<void> {
  if (!WU_ID_PATTERN.test(wuId)) throw invalidInput(`must match ^WU-[0-9]{1,9}$, got "${wuId}"`, 'WU');
  checkOverrideFlags({ allow: options.allowUnreadSignals === true, reason: options.reason });
  const wuEnv = await workUnitsEnv(ctx);
  const claimed = await checkClaimed(wuEnv, wuId);
  const env = await coordinationEnv(ctx);
  const outcome = await signalGate(env, wuId, { allow: options.allowUnreadSignals === true, reason: options.reason });
  const later = await checkWorkspace(wuEnv, wuId);
  if (outcome.overridden_signal_ids.length > 0) await recordOverride(env, wuId, outcome, options.reason!);
  const detail = outcome.overridden_signal_ids.length > 0 ? `overridden: ${outcome.overridden_signal_ids.join(', ')} (${options.reason!})` : outcome.detail;
  ctx.output.emit(
    WuPrepEnvelope,
    {
      v: 1,
      type: 'wu_prep',
      generated_at: ctx.now,
      wu_id: wuId,
      passed: true,
      reader_identity: outcome.reader_identity,
      checks: [claimed, { name: 'signals', passed: true, detail }, ...later],
      overridden_signal_ids: outcome.overridden_signal_ids,
    },
    (e) => `${e.wu_id}: prep passed\n${e.checks.map((c) => `  ${c.name}: ${c.detail}`).join('\n')}`,
  );
}
