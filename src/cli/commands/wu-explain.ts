import { explainWorkUnit } from '../../app/commands/listing.js';
import type { CommandContext } from '../context.js';
import { WuExplanationEnvelope } from '../../app/envelopes/work-units.js';

/** `baton wu explain WU` (§14): src/app/commands/listing.ts, printed. */
export async function wuExplain(ctx: CommandContext, wu: string): Promise<void> {
  ctx.output.nameArguments({ wu: 'WU' });
  ctx.output.emit(WuExplanationEnvelope, await explainWorkUnit(ctx, { wu }), (e) =>
    [
      `${e.wu_id} is ${e.orchestration_state} (rule ${e.rule})`,
      ...e.predicates.map((p) => `  ${p.name} = ${JSON.stringify(p.value)}${p.evidence.length > 0 ? `  [seq ${p.evidence.join(', ')}]` : ''}`),
      ...(e.next_safe_action ? [`Next: ${e.next_safe_action.type} — ${e.next_safe_action.reason}`] : []),
      ...e.integrity_findings.map((f) => `  finding ${f.code} at seq ${f.seq}: ${f.message}`),
    ].join('\n'),
  );
}
