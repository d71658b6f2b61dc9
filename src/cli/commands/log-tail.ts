import type { CommandContext } from '../context.js';
import { parseCount } from '../flags.js';
import { serializeEvent } from '../../store/hash.js';
import { storedLines } from './stored-lines.js';
import { OutputMode } from '../output.js';
import { eventLine } from '../readable-text.js';

export async function logTail(ctx: CommandContext, flags: { lines: string; follow?: boolean }): Promise<void> {
  const count = parseCount(flags.lines, '--lines');
  const store = await ctx.store();
  const head = await store.head();
  // JSON mode prints the stored bytes (ready for jq); human mode one readable line per event.
  const human = ctx.output.mode === OutputMode.human;
  if (count > 0 && head.seq > 0) {
    for await (const { line, event } of storedLines(store, { from: Math.max(1, head.seq - count + 1), to: head.seq }))
      ctx.output.line(human ? eventLine(event) : line);
  }
  if (!flags.follow) return;
  // Follow until interrupted (SIGINT exits 130) or the log can no longer be read.
  await new Promise<void>((_resolve, reject) => {
    store.subscribe(head.seq + 1, (event) => ctx.output.line(human ? eventLine(event) : serializeEvent(event)), { onError: reject });
  });
}
