import { createReadStream, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { StoredEventSchema, type StoredEvent } from '../../../events/envelope.js';
import { describeZodIssues, formatProblems } from '../../../events/validation.js';
import { BatonError, ErrorCode, invalidInput } from '../../errors.js';
import type { CommandContext } from '../context.js';
import { LogImportedEnvelope } from '../envelopes.js';
import { pathError } from '../output-path.js';
import { startProgress } from '../progress.js';

/**
 * Parse an export line by line and check each envelope before the store sees it. Lines are counted
 * here, as they are split, so an error names the line it is on (empty lines are skipped but counted).
 */
async function* exportedEvents(source: NodeJS.ReadableStream): AsyncGenerator<StoredEvent> {
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
  const decoder = new StringDecoder('utf8');
  let carry = '';
  try {
    for await (const chunk of source as AsyncIterable<Buffer | string>) {
      const text = carry + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        const event = parse(text.slice(start, nl));
        start = nl + 1;
        if (event) yield event;
      }
      carry = text.slice(start);
    }
  } catch (error) {
    if (error instanceof BatonError) throw error;
    throw invalidInput(`line ${line + 1}: could not be read (${(error as Error).message})`, 'import');
  }
  const event = parse(carry + decoder.end());
  if (event) yield event;
}

export async function logImport(ctx: CommandContext, file: string): Promise<void> {
  if (file.trim() === '') throw invalidInput('must be a file path or -', 'file');
  if (file !== '-') {
    // A folder opens like a file and fails only when read: refused here, naming it.
    let isFolder = false;
    try {
      isFolder = statSync(file).isDirectory();
    } catch {
      // Reported by the open below, with its reason.
    }
    if (isFolder) throw pathError(Object.assign(new Error('is a folder'), { code: 'EISDIR' }), 'file', file);
  }
  const source: NodeJS.ReadableStream = file === '-' ? process.stdin : createReadStream(file);
  await new Promise<void>((resolve, reject) => {
    if (file === '-') return resolve();
    (source as ReturnType<typeof createReadStream>).once('open', () => resolve()).once('error', (error: NodeJS.ErrnoException) => {
      // A missing file, a folder, a name too long: exit 2 naming the argument and the path.
      reject(error.code === 'ENOENT' ? invalidInput(`no such file "${file}"`, 'file') : pathError(error, 'file', file, 'read'));
    });
  });
  ctx.mayCreateWorkspace();
  const store = await ctx.store();
  let events = 0;
  const progress = startProgress(ctx, 'importing', { unit: 'events read' });
  const counted = async function* (): AsyncGenerator<StoredEvent> {
    for await (const event of exportedEvents(source)) {
      events += 1;
      progress.set(events);
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
