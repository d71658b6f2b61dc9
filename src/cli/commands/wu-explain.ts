import { explainWu } from '../../../projections/work-units/explain-view.js';
import { BatonError, ErrorCode } from '../../errors.js';
import { checkWuId } from '../../work-units/env.js';
import { loadObserved } from '../../work-units/observe.js';
import type { CommandContext } from '../context.js';
import { WuExplanationEnvelope } from '../../app/envelopes/work-units.js';
import { workUnitsEnv } from '../../app/work-units-env.js';

/** `wu explain` (§14): probes, then the rule and the predicates with their events. */
export async function wuExplain(ctx: CommandContext, wuId: string): Promise<void> {
  checkWuId(wuId);
  const env = await workUnitsEnv(ctx);
  const { state } = await loadObserved(env, { append: true });
  const explanation = explainWu(state, wuId, env.config, env.now);
  if (explanation === null) throw new BatonError(ErrorCode.UNKNOWN_ID, `WU ${wuId} not found`, { wu_id: wuId });
  ctx.output.emit(WuExplanationEnvelope, explanation, (e) =>
    [
      `${e.wu_id} is ${e.orchestration_state} (rule ${e.rule})`,
      ...e.predicates.map((p) => `  ${p.name} = ${JSON.stringify(p.value)}${p.evidence.length > 0 ? `  [seq ${p.evidence.join(', ')}]` : ''}`),
      ...(e.next_safe_action ? [`Next: ${e.next_safe_action.type} — ${e.next_safe_action.reason}`] : []),
      ...e.integrity_findings.map((f) => `  finding ${f.code} at seq ${f.seq}: ${f.message}`),
    ].join('\n'),
  );
}
