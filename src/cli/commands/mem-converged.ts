import { readConvergence } from '../../app/commands/coordination-views.js';
import type { CommandContext } from '../context.js';
import { ConvergenceEnvelope } from '../../app/envelopes/coordination.js';

/**
 * Exit 0 when converged, NOT_CONVERGED_EXIT when open or rejected (like `test`, non-zero, but never
 * 1: exit 1 is an unexpected failure everywhere). The convergence envelope is printed either way.
 */
export const NOT_CONVERGED_EXIT = 6;

export async function memConverged(ctx: CommandContext, thread: string): Promise<number> {
  const { envelope, converged } = await readConvergence(ctx, { thread });
  ctx.output.emit(ConvergenceEnvelope, envelope, (v) =>
    [
      `${v.thread_id}: ${v.state} (proposal ${v.proposal_signal_id} by ${v.proposal_author})`,
      `  required: ${v.required.join(', ') || '(none)'}`,
      `  agreed:   ${v.agreed.join(', ') || '-'}`,
      `  rejected: ${v.rejected.join(', ') || '-'}`,
      `  pending:  ${v.pending.join(', ') || '-'}`,
    ].join('\n'),
  );
  return converged ? 0 : NOT_CONVERGED_EXIT;
}
