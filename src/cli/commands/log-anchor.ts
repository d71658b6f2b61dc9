import { anchorLog } from '../../app/commands/log-anchors.js';
import { LogAnchorEnvelope } from '../../app/envelopes/foundation.js';
import type { CommandContext } from '../context.js';

export interface LogAnchorFlags {
  sign?: boolean;
}

/** `baton log anchor [--sign]`: the log's head as a commit on refs/baton/anchors; `--quiet` prints nothing on success (the post-commit hook). */
export async function logAnchor(ctx: CommandContext, flags: LogAnchorFlags): Promise<void> {
  const envelope = await anchorLog(ctx, { sign: flags.sign === true });
  if (ctx.flags.quiet === true) return;
  ctx.output.emit(LogAnchorEnvelope, envelope, (a) => {
    const head = `seq ${a.seq} (hash ${a.hash.slice(0, 12)})`;
    const signed = a.signed ? ', signed' : '';
    switch (a.outcome) {
      case 'empty_log':
        return 'the log is empty: nothing to anchor';
      case 'already_anchored':
        return `${head} is already anchored in ${a.ref}: commit ${a.commit!}${signed}, ${a.anchored_at}; nothing written`;
      case 'anchored':
        return `anchored ${head} in ${a.ref}: commit ${a.commit!}${signed} (share it: git push <remote> ${a.ref})`;
    }
  });
}
