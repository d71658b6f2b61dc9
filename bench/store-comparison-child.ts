/**
 * A child process of the `store-comparison` benchmark: one system, one process, the same work for
 * each, so no system shares a heap, a JIT or `pg`'s global type parsers with another (Emmett's
 * SQL layer, dumbo, switches `pg` to BigInt for int8 and its own JSON parser for jsonb process-wide).
 *
 *   store-comparison-child.js SYSTEM TARGET SINGLE BATCHES
 *
 * SYSTEM is `baton-pg` (TARGET: a store URL with workspace_id), `emmett-pg` (TARGET: a connection
 * string) or `baton-jsonl` (TARGET: an empty folder on the same disk). The work, timed in three
 * parts:
 *   single  SINGLE appends of one event, cycling over 100 streams, each with the stream's expected
 *           version (tracked client-side, 0 = the stream does not exist yet);
 *   batch   BATCHES appends of 100 events, each batch to one stream (100 other streams, cycling),
 *           each with its expected version;
 *   read    every event back in global order (Baton: store.read(); Emmett: readMessagesBatch,
 *           the global-position read its consumers use, 1,000 a page).
 * Events are built before each clock starts. Prints one JSON line: ComparisonChildResult.
 */
import { readFileSync } from 'node:fs';
import type { NewEvent } from '../events/envelope.js';
import { createCatalog } from '../events/index.js';
import type { EventStore } from '../src/store/contract.js';
import { JsonlEventStore } from '../src/store/jsonl/jsonl-store.js';
import { openPostgresStore } from '../src/store/postgres/open-postgres-store.js';
import { noteText } from './support.js';

export const SYSTEMS = ['baton-pg', 'emmett-pg', 'baton-jsonl'] as const;
export type SystemName = (typeof SYSTEMS)[number];

export const BATCH_SIZE = 100;
export const SINGLE_STREAMS = 100;
export const BATCH_STREAMS = 100;
export const READ_PAGE = 1000;

export interface Timed {
  events: number;
  ms: number;
}

export interface ComparisonChildResult {
  system: SystemName;
  single: Timed;
  batch: Timed;
  read: Timed;
  /** Informational lines (not timed against the others). */
  notes: string[];
  maxRssMB: number;
}

/** One unit of work, with the payload of every event already built. */
interface Work {
  single: { stream: string; expected: number; text: string }[];
  batches: { stream: string; expected: number; texts: string[] }[];
  total: number;
}

/** The systems' common surface: what the three timed parts call. */
interface System {
  /** Turn the work's plain payloads into this system's event objects (before any clock starts). */
  prepare(work: Work): PreparedWork;
  /** Schema creation, connections: done before the clock. */
  warm(): Promise<void>;
  readAll(): Promise<number>;
  extraNotes(work: Work): Promise<string[]>;
  close(): Promise<void>;
}

interface PreparedWork {
  single: (() => Promise<void>)[];
  batches: (() => Promise<void>)[];
}

export function singleStream(i: number): string {
  return `note/cmp-single-${String(i % SINGLE_STREAMS).padStart(3, '0')}`;
}

export function batchStream(b: number): string {
  return `note/cmp-batch-${String(b % BATCH_STREAMS).padStart(3, '0')}`;
}

function buildWork(singleCount: number, batchCount: number): Work {
  const versions = new Map<string, number>();
  const next = (stream: string, count: number): number => {
    const expected = versions.get(stream) ?? 0;
    versions.set(stream, expected + count);
    return expected;
  };
  const single = Array.from({ length: singleCount }, (_, i) => {
    const stream = singleStream(i);
    return { stream, expected: next(stream, 1), text: noteText(`s${i}`) };
  });
  const batches = Array.from({ length: batchCount }, (_, b) => {
    const stream = batchStream(b);
    return { stream, expected: next(stream, BATCH_SIZE), texts: Array.from({ length: BATCH_SIZE }, (_, i) => noteText(`b${b}.${i}`)) };
  });
  return { single, batches, total: singleCount + batchCount * BATCH_SIZE };
}

// ---- Baton (either adapter): the store contract ---------------------------------------------

function batonSystem(store: EventStore): System {
  const note = (stream: string, text: string): NewEvent => ({ type: 'note.recorded', stream, data: { text } });
  return {
    prepare(work) {
      return {
        single: work.single.map(({ stream, expected, text }) => {
          const events = [note(stream, text)];
          return async () => void (await store.append(events, { expectedVersion: expected }));
        }),
        batches: work.batches.map(({ stream, expected, texts }) => {
          const events = texts.map((text) => note(stream, text));
          return async () => void (await store.append(events, { expectedVersion: expected }));
        }),
      };
    },
    async warm() {
      await store.head();
    },
    async readAll() {
      let count = 0;
      for await (const event of store.read()) {
        if (event.type !== 'note.recorded') throw new Error(`unexpected event type ${event.type}`);
        count += 1;
      }
      return count;
    },
    async extraNotes(work) {
      const head = await store.head();
      if (head.seq !== work.total) throw new Error(`head seq ${head.seq}, expected ${work.total}`);
      const info = await store.storageInfo();
      return [`head seq ${head.seq}; stored lines ${(info.bytes / work.total).toFixed(0)} bytes/event (storageInfo)`];
    },
    close: () => store.close(),
  };
}

// ---- Emmett: its PostgreSQL event store --------------------------------------------------------

async function emmettSystem(connectionString: string): Promise<System> {
  // Imported here so the Baton children never load Emmett (nor dumbo's global pg type parsers).
  const { dumbo } = await import('@event-driven-io/dumbo');
  const { getPostgreSQLEventStore, readMessagesBatch, readStream } = await import('@event-driven-io/emmett-postgresql');
  type NoteRecorded = import('@event-driven-io/emmett').Event<'note.recorded', { text: string }>;

  const pool = dumbo({ connectionString });
  const store = getPostgreSQLEventStore(connectionString, { connectionOptions: { dumbo: pool } });
  const note = (text: string): NoteRecorded => ({ type: 'note.recorded', data: { text } });
  return {
    prepare(work) {
      return {
        single: work.single.map(({ stream, expected, text }) => {
          const events = [note(text)];
          const expectedStreamVersion = BigInt(expected);
          return async () => void (await store.appendToStream<NoteRecorded>(stream, events, { expectedStreamVersion }));
        }),
        batches: work.batches.map(({ stream, expected, texts }) => {
          const events = texts.map(note);
          const expectedStreamVersion = BigInt(expected);
          return async () => void (await store.appendToStream<NoteRecorded>(stream, events, { expectedStreamVersion }));
        }),
      };
    },
    async warm() {
      // Emmett creates its schema lazily on the first call; do it off the clock.
      await store.schema.migrate();
    },
    async readAll() {
      let count = 0;
      let after = 0n;
      for (;;) {
        const page = await readMessagesBatch<NoteRecorded>(pool.execute, { after, batchSize: READ_PAGE });
        for (const message of page.messages) {
          if (message.type !== 'note.recorded') throw new Error(`unexpected event type ${message.type}`);
          count += 1;
        }
        after = page.currentGlobalPosition;
        if (!page.areMessagesLeft) break;
      }
      return count;
    },
    async extraNotes(work) {
      const rate = (count: number, ms: number): string =>
        `${count.toLocaleString('en-US')} events in ${ms.toFixed(0)} ms = ${Math.round((count * 1000) / ms).toLocaleString('en-US')} events/s`;
      // readMessagesBatch pages with ORDER BY transaction_id, global_position LIMIT n, and
      // emt_messages has no index on either column (its key is stream_id, stream_position, …): every
      // page is a scan and sort of the whole table. The same read as one query, for contrast.
      const oneStart = performance.now();
      // (Not bounded by readLastMessageGlobalPosition: in 0.42.0 it sorts ascending and so returns
      // the FIRST position.)
      const everything = await readMessagesBatch<NoteRecorded>(pool.execute, { from: 1n, to: BigInt(Number.MAX_SAFE_INTEGER) });
      const oneMs = performance.now() - oneStart;
      if (everything.messages.length !== work.total) throw new Error(`one-query read returned ${everything.messages.length} events, expected ${work.total}`);
      // Emmett's other way to read everything back: stream by stream, as an aggregate would.
      const streams = [...new Set([...work.single.map((s) => s.stream), ...work.batches.map((b) => b.stream)])];
      const start = performance.now();
      let count = 0;
      for (const stream of streams) {
        const result = await readStream<NoteRecorded>(pool.execute, stream);
        count += result.events.length;
      }
      const ms = performance.now() - start;
      if (count !== work.total) throw new Error(`readStream over ${streams.length} streams returned ${count} events, expected ${work.total}`);
      return [
        `not in the table: readMessagesBatch as ONE query (from position 1, no LIMIT, no paging): ${rate(everything.messages.length, oneMs)}`,
        `readStream stream by stream (${streams.length} streams): ${rate(count, ms)}`,
      ];
    },
    close: () => store.close(),
  };
}

// ---- the run --------------------------------------------------------------------------------

async function openSystem(system: SystemName, target: string): Promise<System> {
  switch (system) {
    case 'baton-pg':
      return batonSystem(
        await openPostgresStore({ url: target, catalog: createCatalog(), now: () => new Date().toISOString(), actor: 'bench', maxConnections: 1 }),
      );
    case 'baton-jsonl':
      JsonlEventStore.initWorkspace(target);
      return batonSystem(new JsonlEventStore(target, { actor: 'bench' }));
    case 'emmett-pg':
      return emmettSystem(target);
  }
}

async function timed(calls: readonly (() => Promise<void>)[], eventsPerCall: number): Promise<Timed> {
  const start = performance.now();
  for (const call of calls) await call();
  return { events: calls.length * eventsPerCall, ms: performance.now() - start };
}

export async function runSystem(system: SystemName, target: string, singleCount: number, batchCount: number): Promise<ComparisonChildResult> {
  const work = buildWork(singleCount, batchCount);
  const sut = await openSystem(system, target);
  try {
    await sut.warm();
    const prepared = sut.prepare(work);
    const single = await timed(prepared.single, 1);
    const batch = await timed(prepared.batches, BATCH_SIZE);
    const readStart = performance.now();
    const readCount = await sut.readAll();
    const read = { events: readCount, ms: performance.now() - readStart };
    if (readCount !== work.total) throw new Error(`${system}: read back ${readCount} events, expected ${work.total}`);
    const notes = await sut.extraNotes(work);
    return { system, single, batch, read, notes, maxRssMB: process.resourceUsage().maxRSS / 1024 };
  } finally {
    await sut.close();
  }
}

function isSystem(value: string | undefined): value is SystemName {
  return SYSTEMS.some((s) => s === value);
}

function positive(value: string | undefined, name: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return n;
}

/** The installed version of an npm package of the project, read from its package.json. */
export function installedVersion(projectRoot: string, name: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(`${projectRoot}/node_modules/${name}/package.json`, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string') return parsed.version;
  } catch {
    // not installed
  }
  return undefined;
}

const invokedDirectly = process.argv[1] !== undefined && /store-comparison-child\.(js|ts)$/.test(process.argv[1]);
if (invokedDirectly) {
  const [system, target, single, batches] = process.argv.slice(2);
  if (!isSystem(system) || target === undefined) {
    console.error(`usage: store-comparison-child.js (${SYSTEMS.join('|')}) TARGET SINGLE BATCHES`);
    process.exit(2);
  }
  const result = await runSystem(system, target, positive(single, 'SINGLE'), positive(batches, 'BATCHES'));
  process.stdout.write(JSON.stringify(result) + '\n');
}
