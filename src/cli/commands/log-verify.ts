import type { CommandContext } from '../context.js';
import { LogVerificationEnvelope } from '../envelopes.js';

export async function logVerify(ctx: CommandContext): Promise<number> {
  const store = await ctx.store();
  const report = await store.verify();
  ctx.output.emit(LogVerificationEnvelope, { v: 1, type: 'log_verification', generated_at: ctx.now, ...report }, (r) =>
    r.ok
      ? `log verified: ${r.checked} events, seq 1…${r.head_seq}, hash chain unbroken`
      : `log NOT valid at seq ${r.first_bad!.seq} (${r.first_bad!.segment ? `${r.first_bad!.segment}, ` : ''}byte ${r.first_bad!.offset}): ${r.first_bad!.reason}`,
  );
  return report.ok ? 0 : 3;
}
