import { WORK_UNIT_ACTIONS } from '../../app/commands/work-units.js';
import type { WuAction } from '../../work-units/lifecycle.js';
import type { CommandContext } from '../context.js';
import { WuLifecycleEnvelope } from '../../app/envelopes/work-units.js';

/** `wu claim|checkpoint|return|block|unblock|release`: one envelope shape for all of them. */
export type LifecycleOptions = {
  mode?: string;
  worktree?: string;
  branch?: string;
  note?: string;
  progress?: string;
  nextSteps?: string;
  reason?: string;
  takeover?: boolean;
  force?: boolean;
  paths?: string[];
};

export async function wuLifecycle(ctx: CommandContext, action: WuAction, wuId: string, options: LifecycleOptions): Promise<void> {
  ctx.output.nameArguments({ wu: 'WU' });
  const { nextSteps, ...rest } = options;
  const envelope = await WORK_UNIT_ACTIONS[action](ctx, { wu: wuId, ...rest, next_steps: nextSteps });
  ctx.output.emit(WuLifecycleEnvelope, envelope, (e) =>
    e.appended.length === 0
      ? `${e.wu_id}: ${e.action} — nothing to record (already so)`
      : `${e.wu_id}: ${e.action} recorded (seq ${e.appended.map((a) => a.seq).join(', ')})${e.has_yaml ? `; yaml_status ${e.yaml_status ?? '-'}` : ''}`,
  );
}
