import { StoredEventSchema, type StoredEvent } from '../../../events/envelope.js';
import { describeZodIssues, formatProblems } from '../../../events/validation.js';
import { BatonError, invalidInput, isBatonError } from '../../errors.js';
import { INPUT_LIMITS, inputLines, openInputStream } from '../../input/bounded-input.js';
import type { CommandContext } from '../context.js';
import { LogImportedEnvelope } from '../../app/envelopes/foundation.js';
import { startProgress } from '../progress.js';
import { statSync, type ReadStream } from 'node:fs';

/** A regular file's size, 0 for anything else (a named pipe has no size to count against). */
function sizeOf(file: string): number {
  try {
    const stat = statSync(file);
    return stat.isFile() ? stat.size : 0;
  } catch {
    return 0;
  }
}

/**
 * Parse an export line by line and check each envelope before the store sees it. Lines are counted
 * here, as they are split, so an error names the line it is on (empty lines are skipped but counted).
 * The export is streamed, so only a line is limited (INPUT_LIMITS.exportLine, bounded-input.ts).
 */
async function* exportedEvents(source: NodeJS.ReadableStream, file: string): AsyncGenerator<StoredEvent> {
  let line = 0;
  const parse = (text: string): StoredEvent | undefined => {
    line += 1;
    if (text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw invalidInput(`line ${line}: not valid JSON (${(error as Error).message})`, 'import');
    }
    const parsed = StoredEventSchema.safeParse(value);
    if (!parsed.success) throw invalidInput(`line ${line}: ${formatProblems(describeZodIssues(parsed.error))}`, 'import');
    return parsed.data;
  };
  try {
    for await (const text of inputLines(source, file, 'file', INPUT_LIMITS.exportLine)) {
      const event = parse(text);
      if (event) yield event;
    }
  } catch (error) {
    if (error instanceof BatonError) throw error;
    throw invalidInput(`line ${line + 1}: could not be read (${(error as Error).message})`, 'import');
  }
}

export async function logImport(ctx: CommandContext, file: string): Promise<void> {
  if (file.trim() === '') throw invalidInput('must be a file path or -', 'file');
  let source: NodeJS.ReadableStream;
  try {
    // A folder, a device, a name too long: exit 2 naming the argument and the path (bounded-input.ts).
    source = openInputStream(file, 'file');
  } catch (error) {
    if (isBatonError(error) && error.details?.['errno'] === 'ENOENT') throw invalidInput(`no such file "${file}"`, 'file');
    throw error;
  }
  ctx.mayCreateWorkspace();
  const store = await ctx.store();
  let events = 0;
  // A file counts its bytes read against its size; stdin (or a pipe) counts the events read.
  const size = file === '-' ? 0 : sizeOf(file);
  const stream = source as Partial<ReadStream>;
  const progress = startProgress(ctx, 'importing', size > 0 ? { total: size, unit: 'bytes' } : { unit: 'events read' });
  const counted = async function* (): AsyncGenerator<StoredEvent> {
    for await (const event of exportedEvents(source, file)) {
      events += 1;
      progress.set(size > 0 ? (stream.bytesRead ?? 0) : events);
      yield event;
    }
  };
  let head;
  try {
    head = await store.importLog(counted());
  } finally {
    progress.end();
  }
  ctx.output.emit(
    LogImportedEnvelope,
    { v: 1, type: 'log_imported', generated_at: ctx.now, events, head_seq: head.seq, head_hash: head.hash },
    (e) => `imported ${e.events} events (head seq ${e.head_seq}, chain verified)`,
  );
}
