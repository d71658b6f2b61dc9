import { completionWuIds } from '../../app/commands/completion.js';
import type { CommandContext } from '../context.js';

/** What `baton __complete KIND` lists, for the completion scripts: every WU id, or the WUs not done. */
export const COMPLETION_KINDS = ['wu-ids', 'open-wu-ids'] as const;

/**
 * `baton __complete wu-ids|open-wu-ids` (hidden; the completion scripts run it): one word per line,
 * in both output modes. A shell completing must never see an error: any problem (no workspace, no
 * store, an unknown kind) prints nothing and exits 0.
 */
export async function completeWords(ctx: CommandContext, kind: string): Promise<void> {
  let words: string[] = [];
  try {
    if (kind === 'wu-ids' || kind === 'open-wu-ids') words = await completionWuIds(ctx, { open: kind === 'open-wu-ids' });
  } catch {
    words = [];
  }
  for (const word of words) ctx.output.line(word);
}
