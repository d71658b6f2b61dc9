import type { CommandContext } from '../context.js';
import { parseCount } from '../flags.js';
import { serializeEvent } from '../../store/hash.js';
import { storedLines } from './stored-lines.js';

export async function logTail(ctx: CommandContext, flags: { lines: string; follow?: boolean }): Promise<void> {
  const count = parseCount(flags.lines, '--lines');
  const store = await ctx.store();
  const head = await store.head();
  if (count > 0 && head.seq > 0) {
    for await (const { line } of storedLines(store, { from: Math.max(1, head.seq - count + 1), to: head.seq })) ctx.output.line(line);
  }
  if (!flags.follow) return;
  // Follow until interrupted (SIGINT exits 130) or the log can no longer be read.
  await new Promise<void>((_resolve, reject) => {
    store.subscribe(head.seq + 1, (event) => ctx.output.line(serializeEvent(event)), { onError: reject });
  });
}
