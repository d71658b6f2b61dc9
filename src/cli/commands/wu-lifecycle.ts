import { blockWu, checkpointWu, claimWu, releaseWu, returnWu, unblockWu, type LifecycleResult, type WuAction } from '../../work-units/lifecycle.js';
import type { WorkUnitsEnv } from '../../work-units/env.js';
import type { CommandContext } from '../context.js';
import { WuLifecycleEnvelope } from '../envelopes-work-units.js';
import { workUnitsEnv } from '../work-units-env.js';

/** `wu claim|checkpoint|return|block|unblock|release`: one envelope shape for all of them. */
export type LifecycleOptions = { mode?: string; worktree?: string; branch?: string; note?: string; progress?: string; nextSteps?: string; reason?: string };

const RUN: Record<WuAction, (env: WorkUnitsEnv, wuId: string, o: LifecycleOptions) => Promise<LifecycleResult>> = {
  claim: (env, id, o) => claimWu(env, id, pick(o, ['mode', 'worktree', 'branch'])),
  checkpoint: (env, id, o) => checkpointWu(env, id, pick(o, ['note', 'progress', 'nextSteps'])),
  return: (env, id, o) => returnWu(env, id, pick(o, ['note'])),
  block: (env, id, o) => blockWu(env, id, pick(o, ['reason'])),
  unblock: (env, id) => unblockWu(env, id),
  release: (env, id, o) => releaseWu(env, id, pick(o, ['reason'])),
};

function pick<K extends keyof LifecycleOptions>(o: LifecycleOptions, keys: readonly K[]): Pick<LifecycleOptions, K> {
  const out: Partial<LifecycleOptions> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out as Pick<LifecycleOptions, K>;
}

export async function wuLifecycle(ctx: CommandContext, action: WuAction, wuId: string, options: LifecycleOptions): Promise<void> {
  const result = await RUN[action](await workUnitsEnv(ctx), wuId, options);
  ctx.output.emit(WuLifecycleEnvelope, { v: 1, type: 'wu_lifecycle', generated_at: ctx.now, ...result }, (e) =>
    e.appended.length === 0 ? `${e.wu_id}: ${e.action} — nothing to record (already so)` : `${e.wu_id}: ${e.action} recorded (seq ${e.appended.map((a) => a.seq).join(', ')}); yaml_status ${e.yaml_status ?? '-'}`,
  );
}
