import { threadConvergence } from '../../coordination/inbox.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../../app/coordination-env.js';
import { ConvergenceEnvelope } from '../../app/envelopes/coordination.js';

/**
 * Exit 0 when converged, NOT_CONVERGED_EXIT when open or rejected (like `test`, non-zero, but never
 * 1: exit 1 is an unexpected failure everywhere). The convergence envelope is printed either way.
 */
export const NOT_CONVERGED_EXIT = 6;

export async function memConverged(ctx: CommandContext, thread: string): Promise<number> {
  const env = await coordinationEnv(ctx);
  const view = await threadConvergence(env, thread);
  ctx.output.emit(ConvergenceEnvelope, view, (v) =>
    [
      `${v.thread_id}: ${v.state} (proposal ${v.proposal_signal_id} by ${v.proposal_author})`,
      `  required: ${v.required.join(', ') || '(none)'}`,
      `  agreed:   ${v.agreed.join(', ') || '-'}`,
      `  rejected: ${v.rejected.join(', ') || '-'}`,
      `  pending:  ${v.pending.join(', ') || '-'}`,
    ].join('\n'),
  );
  return view.state === 'converged' ? 0 : NOT_CONVERGED_EXIT;
}
