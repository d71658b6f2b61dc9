import type { CommandContext } from '../context.js';
import { parsePositiveInt } from '../flags.js';
import { storedLines } from './stored-lines.js';

export async function logShow(ctx: CommandContext, flags: { from?: string; to?: string; type: string[]; stream: string[] }): Promise<void> {
  const from = flags.from !== undefined ? parsePositiveInt(flags.from, '--from') : undefined;
  const to = flags.to !== undefined ? parsePositiveInt(flags.to, '--to') : undefined;
  const store = await ctx.store();
  for await (const { line } of storedLines(store, {
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(flags.type.length > 0 ? { types: flags.type } : {}),
    ...(flags.stream.length > 0 ? { streams: flags.stream } : {}),
  })) {
    ctx.output.line(line);
  }
}
