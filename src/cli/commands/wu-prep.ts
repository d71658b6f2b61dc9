import { WU_ID_PATTERN } from '../../../events/coordination/identities.js';
import { recordOverride, signalGate } from '../../coordination/prep.js';
import { invalidInput } from '../../errors.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../coordination-env.js';
import { WuPrepEnvelope } from '../envelopes-coordination.js';

/**
 * Minimal `wu prep`: the directed-signal gate only (check 3 of work-units.md §13). When the
 * work-unit issue adds its checks, the override is recorded only after all of them pass.
 */
export async function wuPrep(ctx: CommandContext, wuId: string, options: { allowUnreadSignals?: boolean; reason?: string }): Promise<void> {
  if (!WU_ID_PATTERN.test(wuId)) throw invalidInput(`must match ^WU-[0-9]{1,9}$, got "${wuId}"`, 'WU');
  const env = await coordinationEnv(ctx);
  const outcome = await signalGate(env, wuId, { allow: options.allowUnreadSignals === true, reason: options.reason });
  // ...the later checks of wu prep go here; the override is recorded only once they all passed.
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
      checks: [{ name: 'signals', passed: true, detail }],
      overridden_signal_ids: outcome.overridden_signal_ids,
    },
    (e) => `${e.wu_id}: prep passed (${detail})`,
  );
}
