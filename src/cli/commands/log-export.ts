import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import type { CommandContext } from '../context.js';
import { LogExportedEnvelope } from '../envelopes.js';
import { invalidInput } from '../../errors.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { storedLines } from './stored-lines.js';

export async function logExport(ctx: CommandContext, flags: { out: string }): Promise<void> {
  if (flags.out.trim() === '') throw invalidInput('must be a file path or -', '--out');
  const store = await ctx.store();
  const toStdout = flags.out === '-';
  const fd = toStdout ? undefined : openSync(flags.out, 'w', 0o600);
  let events = 0;
  let headSeq = 0;
  let headHash = GENESIS_HASH;
  try {
    let buffer: string[] = [];
    const flush = async (): Promise<void> => {
      const text = buffer.join('');
      buffer = [];
      if (fd !== undefined) writeSync(fd, text);
      else if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
    };
    for await (const { line, event } of storedLines(store, {})) {
      buffer.push(line + '\n');
      events += 1;
      headSeq = event.seq;
      headHash = event.hash;
      if (buffer.length >= 1000) await flush();
    }
    await flush();
    if (fd !== undefined) fsyncSync(fd);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  ctx.output.emit(
    LogExportedEnvelope,
    { v: 1, type: 'log_exported', generated_at: ctx.now, events, head_seq: headSeq, head_hash: headHash },
    (e) => `exported ${e.events} events (head seq ${e.head_seq}) to ${toStdout ? 'stdout' : flags.out}`,
    { toStderr: toStdout },
  );
}
