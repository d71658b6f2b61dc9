import { checkPaths, type PathGuardEnvelope } from '../../app/commands/guard.js';
import { PathGuardEnvelope as PathGuardSchema } from '../../app/envelopes/guard.js';
import type { CommandContext } from '../context.js';

/** `baton guard PATH…` / `baton guard --staged`: who holds each path; exit 4 when another live holder does. */
export async function guard(ctx: CommandContext, paths: readonly string[], options: { staged?: boolean }): Promise<number> {
  ctx.output.nameArguments({ paths: 'PATH' });
  const envelope = await checkPaths(ctx, { paths, staged: options.staged, cwd: process.cwd() });
  ctx.output.emit(PathGuardSchema, envelope, (e) => renderGuard(e, options.staged === true));
  return envelope.ok ? 0 : 4;
}

/** The human lines of a guard envelope: one per path (staged: the reserved ones only), then what to do about the held ones. */
export function renderGuard(e: PathGuardEnvelope, staged = false): string {
  const shown = staged ? e.paths.filter((p) => p.status !== 'free') : e.paths;
  const lines = shown.map((p) => {
    if (p.status === 'free') return `${p.path}: free`;
    if (p.status === 'mine') return `${p.path}: yours (${p.reservations.map((r) => r.wu_id).join(', ')})`;
    const others = p.reservations.filter((r) => !r.mine);
    return `${p.path}: reserved by ${others.map((r) => `${r.wu_id} (${r.glob}), held by ${r.holder.session ?? r.holder.identity} until ${r.holder.lease_until}`).join('; ')}`;
  });
  if (e.skipped)
    lines.push(
      `BATON_GUARD=off: the check was skipped${e.held.length > 0 ? ` (${e.held.length} reserved path(s) overridden)` : ''}; recorded as guard.skipped`,
    );
  else if (e.held.length > 0) {
    const first = e.paths.find((p) => p.status === 'held')!.reservations.find((r) => !r.mine)!;
    lines.push(
      `${e.held.length} path(s) reserved by another live holder. Coordinate with it (baton mem signal --to ${first.holder.session ?? first.holder.identity} --wu ${first.wu_id} "…"); if it is yours, act as its session (--session / BATON_SESSION); to commit anyway: BATON_GUARD=off (recorded).`,
    );
  } else if (staged && lines.length === 0) lines.push(`baton guard: ${e.paths.length} staged path(s), none reserved by another live holder`);
  return lines.join('\n');
}
