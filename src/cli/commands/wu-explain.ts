import { explainWorkUnit } from '../../app/commands/listing.js';
import type { CommandContext } from '../context.js';
import { WuExplanationEnvelope } from '../../app/envelopes/work-units.js';
import type { z } from 'zod';

type WuExplanationEnvelope = z.output<typeof WuExplanationEnvelope>;

/** `baton wu explain WU` (§14): src/app/commands/listing.ts, printed. */
export async function wuExplain(ctx: CommandContext, wu: string): Promise<void> {
  ctx.output.nameArguments({ wu: 'WU' });
  ctx.output.emit(WuExplanationEnvelope, await explainWorkUnit(ctx, { wu }), (e) =>
    [
      `${e.wu_id} is ${e.orchestration_state} (rule ${e.rule})`,
      ...e.predicates.map((p) => `  ${p.name} = ${JSON.stringify(p.value)}${p.evidence.length > 0 ? `  [seq ${p.evidence.join(', ')}]` : ''}`),
      ...(e.claim ? [claimLine(e.claim)] : []),
      ...(e.next_safe_action ? [`Next: ${e.next_safe_action.type} — ${e.next_safe_action.reason}`] : []),
      ...e.integrity_findings.map((f) => `  finding ${f.code} at seq ${f.seq}: ${f.message}`),
    ].join('\n'),
  );
}

type Claim = NonNullable<WuExplanationEnvelope['claim']>;

/** Who holds the claim and its lease; how it was taken over or forced, and why. */
function claimLine(c: Claim): string {
  const holder = c.unowned
    ? 'unowned (claimed without a session by an older Baton: anyone may act on it)'
    : `held by ${c.session ?? `agent ${c.agent_identity ?? '?'}`}, ${c.live ? `lease until ${c.lease_until}` : `lease lapsed ${c.lease_until}`}`;
  const how = [
    ...(c.takeover_from !== null ? [`took over from ${c.takeover_from}`] : []),
    ...(c.forced.length > 0 ? [`forced past ${c.forced.join(' and ')}`] : []),
  ];
  return `Claim (seq ${c.seq}): ${holder}${how.length > 0 ? `; ${how.join(', ')}` : ''}${c.reason !== null ? ` (reason: ${c.reason})` : ''}`;
}
