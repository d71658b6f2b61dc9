import { createReadStream } from 'node:fs';
import ndjson from 'ndjson';
import { StoredEventSchema, type StoredEvent } from '../../../events/envelope.js';
import { describeZodIssues, formatProblems } from '../../../events/validation.js';
import { BatonError, ErrorCode, invalidInput } from '../../errors.js';
import type { CommandContext } from '../context.js';
import { LogImportedEnvelope } from '../envelopes.js';

/** Parse an export line by line (ndjson, strict) and check each envelope before the store sees it. */
async function* exportedEvents(source: NodeJS.ReadableStream): AsyncGenerator<StoredEvent> {
  const parser = source.pipe(ndjson.parse({ strict: true }));
  let line = 0;
  try {
    for await (const value of parser as AsyncIterable<unknown>) {
      line += 1;
      const parsed = StoredEventSchema.safeParse(value);
      if (!parsed.success) throw invalidInput(`line ${line}: ${formatProblems(describeZodIssues(parsed.error))}`, 'import');
      yield parsed.data;
    }
  } catch (error) {
    if (error instanceof BatonError) throw error;
    throw invalidInput(`line ${line + 1}: not valid JSON (${(error as Error).message})`, 'import');
  }
}

export async function logImport(ctx: CommandContext, file: string): Promise<void> {
  if (file.trim() === '') throw invalidInput('must be a file path or -', 'file');
  const source: NodeJS.ReadableStream = file === '-' ? process.stdin : createReadStream(file);
  await new Promise<void>((resolve, reject) => {
    if (file === '-') return resolve();
    (source as ReturnType<typeof createReadStream>).once('open', () => resolve()).once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT' ? invalidInput(`no such file "${file}"`, 'file') : new BatonError(ErrorCode.UNEXPECTED, error.message));
    });
  });
  const store = await ctx.store();
  let events = 0;
  const counted = async function* (): AsyncGenerator<StoredEvent> {
    for await (const event of exportedEvents(source)) {
      events += 1;
      yield event;
    }
  };
  const head = await store.importLog(counted());
  ctx.output.emit(
    LogImportedEnvelope,
    { v: 1, type: 'log_imported', generated_at: ctx.now, events, head_seq: head.seq, head_hash: head.hash },
    (e) => `imported ${e.events} events (head seq ${e.head_seq}, chain verified)`,
  );
}
