import type { CommandContext } from '../context.js';
import { LogExportedEnvelope } from '../../app/envelopes/foundation.js';
import { invalidInput } from '../../errors.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { AtomicOutput, checkOutputPath } from '../output-path.js';
import { parsePositiveInt } from '../flags.js';
import { storedLines } from './stored-lines.js';
import { startProgress } from '../progress.js';

export async function logExport(ctx: CommandContext, flags: { out: string; to?: string; force?: boolean }): Promise<void> {
  if (flags.out.trim() === '') throw invalidInput('must be a file path or -', '--out');
  // `--to`: the events up to that seq only; reads stop there, so a corrupt line after it is never met.
  const to = flags.to !== undefined ? parsePositiveInt(flags.to, '--to') : undefined;
  const toStdout = flags.out === '-';
  // Checked before the store is opened: an export onto `.baton/` must change nothing.
  const target = toStdout ? undefined : checkOutputPath(await ctx.workspace(), flags.out, '--out', { force: flags.force === true });
  const store = await ctx.store();
  // The head is read before the temporary file exists: a log that cannot answer leaves nothing behind.
  const progress = startProgress(ctx, 'exporting', { total: to ?? (await store.head()).seq, unit: 'events' });
  const output = target === undefined ? undefined : new AtomicOutput(target, '--out', flags.out, flags.force === true);
  let events = 0;
  let headSeq = 0;
  let headHash = GENESIS_HASH;
  try {
    let buffer: string[] = [];
    const flush = async (): Promise<void> => {
      const text = buffer.join('');
      buffer = [];
      if (output !== undefined) output.write(text);
      else if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
    };
    for await (const { line, event } of storedLines(store, to !== undefined ? { to } : {})) {
      buffer.push(line + '\n');
      events += 1;
      progress.set(events);
      headSeq = event.seq;
      headHash = event.hash;
      if (buffer.length >= 1000) await flush();
    }
    await flush();
    output?.commit();
  } catch (error) {
    output?.abort();
    throw error;
  } finally {
    progress.end();
  }
  ctx.output.emit(
    LogExportedEnvelope,
    { v: 1, type: 'log_exported', generated_at: ctx.now, events, head_seq: headSeq, head_hash: headHash },
    (e) => `exported ${e.events} events (head seq ${e.head_seq}) to ${toStdout ? 'stdout' : flags.out}`,
    { toStderr: toStdout },
  );
}
