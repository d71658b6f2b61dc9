import {
  closeSync,
  copyFileSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  watch,
  writeSync,
  type FSWatcher,
} from 'node:fs';
import { join } from 'node:path';
import type { EventCatalog } from '../../../events/catalog.js';
import type { NewEvent, StoredEvent } from '../../../events/envelope.js';
import { builtInCatalog } from '../../../events/builtin-catalog.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import type { LogRecoveredData, LogRepairedData } from '../../../events/log.js';
import { ConflictError, invalidInput, LogCorruptError } from '../../errors.js';
import { storeUnavailable, writeFailed } from './write-failure.js';
import { assertNoLinkBelow, ensureOwnedDir } from '../../artifacts/owned-paths.js';
import type { ValidatedBatch } from '../append-plan.js';
import type { ChainChecker } from '../chain-checker.js';
import type {
  AppendOptions,
  AppendResult,
  BadPosition,
  EventHandler,
  EventStore,
  Head,
  ReadOptions,
  StorageInfo,
  SubscribeOptions,
  Subscription,
  VerifyReport,
} from '../contract.js';
import { DeliveryLoop } from '../delivery.js';
import { matchesFilter } from '../read-filter.js';
import type { StoreIndex } from '../store-index.js';
import { DIR_MODE, FILE_MODE, segmentName, workspaceLayout, type WorkspaceLayout } from './layout.js';
import { loadBlockHasher } from './block-hasher.js';
import { SealDigests } from './seal-digests.js';
import { DEFAULT_SEAL_WORKER_MIN_BYTES } from './seal-checker.js';
import { LineReader, NEWLINE } from './line-reader.js';
import { describeTail, readUncommittedTail, TailKind, type UncommittedTail } from './uncommitted-tail.js';
import type * as WriterModules from './writer-modules.js';
import { CheckedPrefix } from './checked-prefix.js';
import { cursorFor, findTail, listSegments, readIsLong, scanFrom, scanRuns, scanTailLines, startCursor, type Cursor, type ScanEnd, type ScannedEvent, type Segment } from './segment-scan.js';
import { forgetVerifiedPrefix, fstatIdentity, loadVerifiedPrefix, sameIdentity, saveVerifiedPrefix, statIdentity, trustedStart, type FileIdentity } from './verified-prefix.js';
import type { VerifiedSegment } from './verified-prefix-schema.js';

export interface JsonlStoreOptions {
  catalog?: EventCatalog;
  now?: () => string;
  actor?: string;
  /** Roll to a new segment once the current one reaches this size. */
  segmentBytes?: number;
  lockTimeoutMs?: number;
  /** How often subscriptions poll when `fs.watch` is unavailable (and as a safety net when it is). */
  pollIntervalMs?: number;
  /** Set false to rely on polling alone (file systems where `fs.watch` never fires, e.g. some network mounts). */
  useFsWatch?: boolean;
  /** Told when recovery quarantined a torn write (the CLI prints it on stderr). */
  onRecovered?: (report: LogRecoveredData) => void;
  /** Told when recovery restored the newline of a whole last event in place (the CLI prints it on stderr). */
  onRepaired?: (report: LogRepairedData) => void;
  /**
   * Reads of at least this many bytes check line seals on a worker thread, on another core, while
   * this thread parses (seal-checker.ts; default 16 MiB). Infinity: always inline.
   */
  sealWorkerMinBytes?: number;
  /**
   * Such long reads remember the blocks of lines whose seals they checked, by digest, in the cache
   * folder, and skip the per-line checks for blocks met again (seal-digests.ts). Default true.
   */
  sealDigests?: boolean;
  /**
   * verify() checks the log on worker threads (parallel-verify.ts) when its segments hold at least
   * this many bytes in total and the catalog is the built-in one (the default, or createCatalog()
   * without extra definitions); else in this thread. The report is the same either way. Default
   * 32 MiB (a worker takes a while to start); 0 = always; Infinity = never.
   */
  parallelVerifyMinBytes?: number;
  /** The smallest byte range of a segment a verify worker is given at once (default 8 MiB; tests use small ones). */
  parallelVerifyRangeBytes?: number;
}

/** What recovery did about the bytes after the committed end. */
export type TailRecovery = { kind: 'repaired'; report: LogRepairedData } | { kind: 'recovered'; report: LogRecoveredData };

/** How the last verify() of a store handle ran: diagnostics (tests, benchmarks), not part of the store contract. */
export interface VerifyRun {
  mode: 'serial' | 'parallel';
  /** Worker threads started, and the ranges they were given (parallel only). */
  workers: number;
  ranges: number;
  /** Why a verify big enough for workers ran serially (a custom catalog, a worker that failed). */
  fallback?: string;
}

const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
const DEFAULT_PARALLEL_VERIFY_MIN_BYTES = 32 * 1024 * 1024;
const DEFAULT_PARALLEL_VERIFY_RANGE_BYTES = 8 * 1024 * 1024;
const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
const PULL_BATCH = 1000;
const READ_CHUNK = 256;
/** Re-save the index cache once this many events were folded since it was last written. */
const CACHE_EVERY = 1000;

/**
 * The embedded default adapter: the log as newline-terminated canonical JSON lines in segment files
 * under `.baton/log/`. One batch = one `write()` on an O_APPEND descriptor + one `fdatasync`, under
 * the cross-process lock that assigns seq and the hash chain.
 */
export class JsonlEventStore implements EventStore {
  readonly kind = 'jsonl';
  readonly layout: WorkspaceLayout;
  private readonly catalog: EventCatalog;
  private readonly now: () => string;
  private readonly actor: string;
  private readonly segmentBytes: number;
  private readonly lockTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly useFsWatch: boolean;
  private readonly onRecovered: ((report: LogRecoveredData) => void) | undefined;
  private readonly onRepaired: ((report: LogRepairedData) => void) | undefined;
  private readonly sealWorkerMinBytes: number;
  private readonly sealDigests: boolean;
  /** The log directory's identity as of construction (process-lock.ts lockIdentity); the lock is named after it. */
  private readonly lockIdentity: string;
  /** Loaded on the first write (writer-modules.ts): reads need none of it. */
  private writer: typeof WriterModules | undefined;
  private writerLoading: Promise<typeof WriterModules> | undefined;
  /** The committed end as this process last saw it. */
  private tail: Cursor | undefined;
  private headHash = GENESIS_HASH;
  /** Id of the last committed event, when known (new ids must sort after it). */
  private headId: string | undefined;
  /** Streams and idempotency keys; loaded only when an append or a query needs them. */
  private index: StoreIndex | undefined;
  private foldedSinceCache = 0;
  private writeFd: { fd: number; segment: string } | undefined;
  /** In-process serialisation in front of the cross-process lock. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly subscriptions = new Set<DeliveryLoop>();
  private readonly parallelVerifyMinBytes: number;
  private readonly parallelVerifyRangeBytes: number;
  /** How the last verify() ran (see VerifyRun). */
  lastVerify: VerifyRun | undefined;
  /**
   * The segments this handle checked line by line (or found unchanged since a writer did), from the
   * log's first, with each file's identity when it last matched what was checked (verified-prefix.ts).
   * Set once the tail was found by checking the whole log; undefined while it never was.
   */
  private verifiedSegments: VerifiedSegment[] | undefined;
  /** The record as loaded or last saved, to skip rewriting an unchanged one. */
  private verifiedSaved = '';
  private recordedOnce = false;
  /** How far reads may skip lines as already checked (checked-prefix.ts). */
  private readonly checkedPrefix: CheckedPrefix;

  constructor(workspace: string, options: JsonlStoreOptions = {}) {
    this.layout = workspaceLayout(workspace);
    this.checkedPrefix = new CheckedPrefix(this.layout.cache);
    // Without a catalog: the built-in one, which loads zod only to word an error.
    this.catalog = options.catalog ?? builtInCatalog();
    this.now = options.now ?? (() => new Date().toISOString());
    this.actor = options.actor ?? 'system';
    this.segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.useFsWatch = options.useFsWatch ?? true;
    this.onRecovered = options.onRecovered;
    this.onRepaired = options.onRepaired;
    this.sealWorkerMinBytes = options.sealWorkerMinBytes ?? DEFAULT_SEAL_WORKER_MIN_BYTES;
    this.sealDigests = options.sealDigests ?? true;
    if (!(this.sealWorkerMinBytes >= 0)) throw invalidInput('must be a number of bytes ≥ 0 (Infinity: never)', 'sealWorkerMinBytes');
    this.parallelVerifyMinBytes = options.parallelVerifyMinBytes ?? DEFAULT_PARALLEL_VERIFY_MIN_BYTES;
    if (!(this.parallelVerifyMinBytes >= 0)) throw invalidInput('must be a number of bytes ≥ 0 (Infinity: never)', 'parallelVerifyMinBytes');
    this.parallelVerifyRangeBytes = options.parallelVerifyRangeBytes ?? DEFAULT_PARALLEL_VERIFY_RANGE_BYTES;
    if (!Number.isSafeInteger(this.parallelVerifyRangeBytes) || this.parallelVerifyRangeBytes < 1) {
      throw invalidInput('must be a whole number of bytes ≥ 1', 'parallelVerifyRangeBytes');
    }
    try {
      this.lockIdentity = realpathSync(this.layout.log);
    } catch {
      this.lockIdentity = this.layout.log;
    }
  }

  /** The write-side modules, loaded once per handle. */
  private loadWriter(): Promise<typeof WriterModules> {
    this.writerLoading ??= import('./writer-modules.js').then((m) => (this.writer = m));
    return this.writerLoading;
  }

  private lockNameCache: string | undefined;

  private get lockName(): string {
    return (this.lockNameCache ??= this.writer!.lockNameForIdentity(this.lockIdentity));
  }

  /** Create `.baton/` with its folders (0700). Returns whether anything was created. */
  static initWorkspace(workspace: string): boolean {
    const layout = workspaceLayout(workspace);
    let created = false;
    for (const dir of [layout.root, layout.log, layout.cache, layout.quarantine]) {
      created = ensureOwnedDir(workspace, dir, DIR_MODE) || created;
    }
    return created;
  }

  private foldersChecked = false;

  /**
   * The log's segments. The first call per handle checks that none of `.baton/`'s own folders is a
   * symlink (owned-paths.ts), so no read or write of this handle is steered to another log.
   */
  private segments(): Segment[] {
    if (!this.foldersChecked) {
      for (const dir of [this.layout.log, this.layout.cache, this.layout.quarantine]) assertNoLinkBelow(this.layout.workspace, dir);
      this.foldersChecked = true;
    }
    return listSegments(this.layout.log);
  }

  /** `.baton/` and its folders exist; checked once per handle (four lstat walks on every append would add up). */
  private ensureWorkspace(): void {
    if (this.workspaceReady) return;
    JsonlEventStore.initWorkspace(this.layout.workspace);
    this.workspaceReady = true;
  }

  private workspaceReady = false;

  // ---- append -------------------------------------------------------------------------------

  append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    const writer = this.writer;
    // The first write of a handle loads the write side; appends made meanwhile keep their order.
    if (writer === undefined) return this.loadWriter().then(() => this.append(events, options));
    // Validation needs no lock and rejects bad input before anything is touched. A valid batch
    // resolves at once, so batches enter the queue in the order append was called.
    return writer.validateBatch(this.catalog, events, options).then((batch) => {
      const run = (): Promise<AppendResult> => this.appendLocked(batch);
      const result = this.queue.then(run, run);
      this.queue = result.catch(() => undefined);
      return result;
    });
  }

  private async appendLocked(batch: ValidatedBatch): Promise<AppendResult> {
    this.ensureWorkspace();
    const lock = await this.writer!.acquireProcessLock(this.lockName, { timeoutMs: this.lockTimeoutMs });
    let result: AppendResult;
    let syncFd: number;
    try {
      const end = this.catchUp();
      if (end.uncommittedBytes > 0) this.recover(end);
      const needsIndex = batch.idempotencyKey !== undefined || batch.expected.size > 0;
      // Streams and idempotency keys are only loaded when the batch asks about them: a plain
      // append needs nothing but the head.
      const { emptyIndex, planAppend, recordWritten } = this.writer!;
      const index = needsIndex ? this.ensureIndex() : (this.index ?? { ...emptyIndex(), seq: this.tail!.seq - 1, hash: this.headHash });
      // The plan's bytes are written below, before anything seals again: no copy of them is needed.
      const plan = planAppend(batch, index, { now: this.now, defaultActor: this.actor, lastId: this.headId, borrowBytes: true });
      if (plan.kind === 'deduplicated') {
        const stored: StoredEvent[] = [];
        for await (const e of this.read({ from: plan.first, to: plan.last })) stored.push(e);
        result = { events: stored, deduplicated: true };
        // The first append of these events may not have finished its fsync yet.
        syncFd = this.fdFor(this.tail!.segment);
      } else {
        syncFd = this.writeCommitted(plan.events, plan.bytes);
        // A handle's first write records what it checked at once, under the lock, where the file
        // is exactly what it checked and wrote: the next CLI append (a process of its own) then
        // finds the record matching and checks nothing. Later writes are recorded on close.
        if (!this.recordedOnce) {
          this.recordedOnce = true;
          this.recordVerifiedPrefix();
        }
        if (this.index) {
          recordWritten(this.index, plan.events, batch.digest, batch.idempotencyKey);
          this.foldedSinceCache += plan.events.length;
        }
        // The plan's objects are fresh and this store keeps none of them: no defensive copy needed.
        result = { events: plan.events, deduplicated: false };
      }
    } finally {
      await lock.release();
    }
    // Durability after the lock: the write's position in the file (and so seq and the chain) was
    // fixed under the lock; the fsync needs no exclusion. Concurrent appenders' fsyncs then share
    // journal commits instead of queueing behind each other. The append is reported done only after
    // its fsync, and an fdatasync flushes every earlier byte of the file too, so whatever is
    // reported done is durable together with everything before it (segment rolls fsync the old
    // segment first, under the lock). Readers may see an event a moment before it is durable.
    fdatasyncSync(syncFd);
    for (const sub of this.subscriptions) sub.poke();
    return result;
  }

  /**
   * Write events as one buffer with one `write()`; the caller holds the lock and the tail is
   * current. Returns the descriptor to fdatasync (after the lock), or syncs now when `syncNow`.
   */
  private writeCommitted(events: readonly StoredEvent[], bytes: Buffer, syncNow = false): number {
    const tail = this.tail!;
    let segment = tail.segment;
    if (segment.name === '' || (tail.offset >= this.segmentBytes && tail.seq > segment.firstSeq)) {
      // Events of the old segment must be durable before any event of the new one can be.
      if (segment.name !== '') {
        fdatasyncSync(this.fdFor(segment));
        this.sealVerifiedSegment(segment, tail);
      }
      segment = this.createSegment(tail.seq);
    }
    const fd = this.fdFor(segment);
    const start = segment.name === tail.segment.name ? tail.offset : 0;
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (error) {
      throw writeFailed(error, segment, fd, start, written, events.length);
    }
    if (syncNow) fdatasyncSync(fd);
    const last = events.at(-1)!;
    const offset = segment.name === tail.segment.name ? tail.offset + bytes.length : bytes.length;
    this.tail = { segment, offset, seq: last.seq + 1, prevHash: last.hash };
    this.headHash = last.hash;
    this.headId = last.id;
    return fd;
  }

  private createSegment(firstSeq: number): Segment {
    const name = segmentName(firstSeq);
    const path = join(this.layout.log, name);
    const fd = openSync(path, 'wx', FILE_MODE);
    fsyncSync(fd);
    closeSync(fd);
    // The new directory entry must be durable before events in it are reported done.
    const dirFd = openSync(this.layout.log, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    return { name, firstSeq, path };
  }

  private fdFor(segment: Segment): number {
    if (this.writeFd?.segment === segment.name) return this.writeFd.fd;
    this.closeWriteFd();
    // Read-write + append: writes always land at the end, and catch-up reads by position.
    const fd = openSync(segment.path, 'a+', FILE_MODE);
    this.writeFd = { fd, segment: segment.name };
    return fd;
  }

  private closeWriteFd(): void {
    if (this.writeFd) {
      closeSync(this.writeFd.fd);
      this.writeFd = undefined;
    }
  }

  /**
   * Bring the tail (and the index, when loaded) up to what other processes committed. Returns what
   * lies beyond the committed end, which under the lock can only be a crashed writer's torn bytes.
   */
  private catchUp(): ScanEnd {
    const atTail = this.catchUpAtTail();
    if (atTail) return atTail;
    const segments = this.segments();
    if (!this.tail || !segments.some((s) => s.name === this.tail!.segment.name)) {
      const end = this.checkWholeLog(segments);
      if (this.index && this.index.seq !== end.cursor.seq - 1) this.index = undefined;
      this.foldedSinceCache = this.index ? this.foldedSinceCache : 0;
      return end;
    }
    // Read what others appended through the writer's own descriptor: no open/close under the lock.
    const scan = scanFrom(segments, this.tail, (segment) => (this.writeFd?.segment === segment.name ? this.writeFd.fd : undefined));
    // An index exists only once a write or a stream query loaded the write side.
    const builder = this.index ? new this.writer!.IndexBuilder(this.index) : undefined;
    let step = scan.next();
    while (!step.done) {
      builder?.add(step.value.event);
      this.foldedSinceCache += builder ? 1 : 0;
      this.headHash = step.value.event.hash;
      this.headId = step.value.event.id;
      step = scan.next();
    }
    builder?.flush();
    this.tail = step.value.cursor;
    return step.value;
  }

  /**
   * Find the committed tail by checking every line of the log, from the first byte or from where
   * the verified-prefix record (verified-prefix.ts) says nothing changed since a writer checked it:
   * a corrupt line anywhere refuses the append (LOG_CORRUPT), however long the log. Sets the tail,
   * head and the segments checked.
   */
  private checkWholeLog(segments: readonly Segment[]): ScanEnd {
    const start = trustedStart(loadVerifiedPrefix(this.layout.cache), segments);
    if (start === undefined) {
      this.tail = { segment: { name: '', firstSeq: 1, path: '' }, offset: 0, seq: 1, prevHash: GENESIS_HASH };
      this.headHash = GENESIS_HASH;
      this.headId = undefined;
      this.verifiedSegments = [];
      return { cursor: { ...this.tail }, uncommittedBytes: 0, uncommittedLines: 0 };
    }
    // Each file's identity before its lines are read: a change made while they are read then shows.
    const identities = new Map<string, FileIdentity | undefined>();
    for (const segment of segments.slice(start.trusted.length)) identities.set(segment.name, statIdentity(segment.path));
    const lastOf = new Map<string, StoredEvent>();
    let last: StoredEvent | undefined;
    const scan = scanFrom(segments, start.cursor, (segment) => (this.writeFd?.segment === segment.name ? this.writeFd.fd : undefined));
    const next = (): IteratorResult<ScannedEvent, ScanEnd> => {
      try {
        return scan.next();
      } catch (error) {
        if (!(error instanceof LogCorruptError)) throw error;
        throw new LogCorruptError(`${error.message}; nothing is appended to a corrupt log (baton log verify says how to recover)`, error.details as ConstructorParameters<typeof LogCorruptError>[1]);
      }
    };
    let step = next();
    let segmentName = '';
    while (!step.done) {
      // The last event of each segment read: what a sealed segment's entry records.
      if (last !== undefined && step.value.segment.name !== segmentName) lastOf.set(segmentName, last);
      segmentName = step.value.segment.name;
      last = step.value.event;
      step = next();
    }
    const end = step.value;
    this.tail = end.cursor;
    this.headHash = last?.hash ?? end.cursor.prevHash ?? GENESIS_HASH;
    this.headId = last?.id ?? start.lastId;
    const entries = [...start.trusted];
    const endIndex = segments.findIndex((s) => s.name === end.cursor.segment.name);
    for (let i = start.trusted.length; i <= endIndex; i++) {
      const segment = segments[i]!;
      const identity = identities.get(segment.name);
      const final = i === endIndex ? { seq: end.cursor.seq - 1, hash: end.cursor.prevHash } : lastOf.get(segment.name);
      if (identity === undefined || final === undefined || final.hash === undefined) break;
      if (i === endIndex && (Number(identity.size) !== end.cursor.offset || end.uncommittedBytes > 0)) break;
      entries.push({ name: segment.name, ...identity, last_seq: final.seq, last_hash: final.hash });
    }
    this.verifiedSegments = entries;
    return end;
  }

  /**
   * Record what this handle checked (verified-prefix.ts), so the next writer checks only what
   * changed since. The segment it ends in is re-stat'ed now: when others appended meanwhile, their
   * lines are checked first (without the lock: a write in flight just means no record this time).
   */
  private recordVerifiedPrefix(): void {
    const entries = this.verifiedSegments;
    const tail = this.tail;
    if (entries === undefined || tail === undefined || tail.segment.name === '' || tail.prevHash === undefined) return;
    try {
      const segments = listSegments(this.layout.log);
      const index = segments.findIndex((s) => s.name === tail.segment.name);
      const sealed = entries.filter((e) => e.name !== tail.segment.name);
      // The record must name the log's segments in order, from its first, up to the tail's.
      if (index < 0 || sealed.length !== index || sealed.some((e, i) => e.name !== segments[i]!.name)) return;
      const previous = entries.find((e) => e.name === tail.segment.name);
      const identity = statIdentity(tail.segment.path);
      let live: VerifiedSegment;
      if (previous !== undefined && sameIdentity(identity, previous)) live = previous;
      else {
        if (identity === undefined) return;
        let at: Cursor = tail;
        if (Number(identity.size) !== tail.offset) {
          const scan = scanFrom(segments, tail);
          let step = scan.next();
          while (!step.done) step = scan.next();
          const end = step.value;
          if (end.cursor.segment.name !== tail.segment.name || end.cursor.offset !== Number(identity.size) || end.uncommittedBytes > 0) return;
          at = end.cursor;
        }
        if (at.prevHash === undefined) return;
        live = { name: tail.segment.name, ...identity, last_seq: at.seq - 1, last_hash: at.prevHash };
      }
      const record = [...sealed, live];
      const text = JSON.stringify(record);
      if (text === this.verifiedSaved) return;
      saveVerifiedPrefix(this.layout.cache, record);
      this.verifiedSaved = text;
    } catch {
      // Not recorded: the next writer checks from the first segment that changed.
    }
  }

  /** The segment being rolled away from is complete and checked: recorded as such (under the lock). */
  private sealVerifiedSegment(segment: Segment, tail: Cursor): void {
    if (this.verifiedSegments === undefined || tail.prevHash === undefined) return;
    const rest = this.verifiedSegments.filter((e) => e.name !== segment.name);
    const identity = statIdentity(segment.path);
    if (identity === undefined || Number(identity.size) !== tail.offset) {
      this.verifiedSegments = undefined;
      return;
    }
    this.verifiedSegments = [...rest, { name: segment.name, ...identity, last_seq: tail.seq - 1, last_hash: tail.prevHash }];
  }

  /**
   * The common cases of catchUp, without listing the folder: nothing was committed or torn since this
   * handle's last write, or others appended whole batches to the segment it writes (segment-scan.ts
   * scanTailLines). Its segment file is still linked (appends only grow it;
   * recovery only cuts bytes past the committed end), and no segment starts at the new tail's seq
   * (another process rolling over). An unchanged tail costs one fstat and one stat instead of a
   * readdir and a read on every single-event append; a few lines, one read and their
   * checks instead of the full scan under the lock. Anything else: undefined, full scan.
   */
  private catchUpAtTail(): ScanEnd | undefined {
    const tail = this.tail;
    const open = this.writeFd;
    if (tail === undefined || open === undefined || open.segment !== tail.segment.name || tail.prevHash === undefined) return undefined;
    const stat = fstatSync(open.fd);
    if (stat.nlink === 0) {
      // The file was removed or replaced under this handle: never read or write through it again.
      this.closeWriteFd();
      return undefined;
    }
    const appended = stat.size === tail.offset ? { events: [], cursor: tail } : scanTailLines(open.fd, tail, stat.size);
    if (appended === undefined || existsSync(join(this.layout.log, segmentName(appended.cursor.seq)))) return undefined;
    const last = appended.events.at(-1);
    if (last !== undefined) {
      const builder = this.index ? new this.writer!.IndexBuilder(this.index) : undefined;
      for (const event of appended.events) builder?.add(event);
      builder?.flush();
      if (builder) this.foldedSinceCache += appended.events.length;
      this.headHash = last.hash;
      this.headId = last.id;
      this.tail = appended.cursor;
    }
    return { cursor: { ...appended.cursor }, uncommittedBytes: 0, uncommittedLines: 0 };
  }

  /**
   * What lies after the committed end of the last segment (uncommitted-tail.ts), with the segment
   * and offset it starts at; undefined when nothing does.
   */
  private uncommittedTail(tail: Cursor): { segment: Segment; offset: number; size: number; found: UncommittedTail | undefined } | undefined {
    const last = this.segments().at(-1);
    if (last === undefined) return undefined;
    const segment = tail.segment.name === '' ? last : tail.segment;
    const offset = segment.name === tail.segment.name ? tail.offset : 0;
    const size = statSync(segment.path).size;
    if (size - offset <= 0) return undefined;
    // The chain the tail must extend: known unless only torn bytes sit in a freshly rolled segment.
    const chains = tail.prevHash !== undefined && (tail.segment.name !== '' || tail.seq === segment.firstSeq);
    const found = chains ? readUncommittedTail(segment.path, { offset, seq: tail.seq, prevHash: tail.prevHash! }, size) : undefined;
    return { segment, offset, size, found };
  }

  /**
   * Crash recovery, under the lock, of the bytes after the committed end. A whole last event whose
   * newline is missing or damaged may have been acknowledged: its newline is restored in place and
   * recorded as `log.repaired`, the event kept. Anything else there (a torn line, or the lines of a
   * batch whose write was cut short) is copied to `quarantine/`, fsynced, then cut from the segment,
   * and recorded as a `log.recovered` event. Never silent, never parsed as an event unless whole.
   */
  private recover(end: ScanEnd): TailRecovery | undefined {
    const tail = this.tail!;
    const located = this.uncommittedTail(tail);
    if (located === undefined) return undefined;
    const { segment, offset, size, found } = located;
    if (found?.kind === TailKind.unterminatedEvent) return { kind: 'repaired', report: this.repairNewline(segment, found) };
    const bytes = size - offset;
    ensureOwnedDir(this.layout.workspace, this.layout.quarantine, DIR_MODE);
    // A recovery cut short after quarantining (before truncating) is redone by the next append:
    // with a fixed clock (BATON_NOW) that would pick the same name, so never reuse one.
    const baseName = `${segment.name.replace(/\.jsonl$/, '')}-at-${offset}-${this.now().replace(/[:.]/g, '-')}`;
    let quarantineName = `${baseName}.torn`;
    const source = openSync(segment.path, 'r+');
    try {
      const buffer = Buffer.alloc(bytes);
      readSync(source, buffer, 0, bytes, offset);
      let out: number | undefined;
      for (let copy = 2; out === undefined; copy++) {
        try {
          out = openSync(join(this.layout.quarantine, quarantineName), 'wx', FILE_MODE);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          quarantineName = `${baseName}-${copy}.torn`;
        }
      }
      try {
        let copied = 0;
        while (copied < bytes) copied += writeSync(out, buffer, copied, bytes - copied);
        fsyncSync(out);
      } catch (error) {
        // No quarantine file is left half written (or empty), and nothing is cut from the log.
        closeSync(out);
        out = undefined;
        rmSync(join(this.layout.quarantine, quarantineName), { force: true });
        throw storeUnavailable(error, `could not move ${bytes} torn bytes at ${segment.name}:${offset} to quarantine; the log is unchanged and reads still ignore them`, join(this.layout.quarantine, quarantineName));
      } finally {
        if (out !== undefined) closeSync(out);
      }
      // The quarantine file's directory entry must be durable before the bytes are cut.
      const dirFd = openSync(this.layout.quarantine, 'r');
      try {
        fsyncSync(dirFd);
      } finally {
        closeSync(dirFd);
      }
      ftruncateSync(source, offset);
      fsyncSync(source);
    } finally {
      closeSync(source);
    }
    if (tail.segment.name === '') this.tail = { segment, offset: 0, seq: segment.firstSeq, prevHash: tail.prevHash };
    const report: LogRecoveredData = {
      reason: end.uncommittedLines > 0 ? 'incomplete_batch' : 'torn_tail',
      segment: segment.name,
      offset,
      bytes,
      quarantined_to: `quarantine/${quarantineName}`,
      lines_dropped: end.uncommittedLines,
    };
    this.recordRecovery({ type: 'log.recovered', stream: 'log/recovery', data: report });
    this.onRecovered?.(report);
    return { kind: 'recovered', report };
  }

  /**
   * Restore the newline of a whole last event (uncommitted-tail.ts), fsync, take the event (and its
   * batch) into the log as committed, and record `log.repaired` after it.
   */
  private repairNewline(segment: Segment, found: Extract<UncommittedTail, { kind: typeof TailKind.unterminatedEvent }>): LogRepairedData {
    const fd = openSync(segment.path, 'r+');
    try {
      if (writeSync(fd, Buffer.from([NEWLINE]), 0, 1, found.repairOffset) !== 1) throw new Error('short write');
      fsyncSync(fd);
    } catch (error) {
      throw storeUnavailable(error, `could not restore the newline of seq ${found.seq} at ${segment.name}:${found.repairOffset}; the log is unchanged`, segment.path);
    } finally {
      closeSync(fd);
    }
    // The repaired lines are committed now: catching up folds them like any other process's append.
    const end = this.catchUp();
    if (end.uncommittedBytes > 0 || this.tail!.seq !== found.seq + 1) {
      throw new LogCorruptError(`the newline of seq ${found.seq} was restored, yet the log does not end there (${segment.name}:${found.repairOffset})`, {
        seq: found.seq,
        offset: found.repairOffset,
        segment: segment.name,
        reason: 'repair did not complete the tail',
      });
    }
    const report: LogRepairedData = {
      reason: found.repair,
      segment: segment.name,
      seq: found.seq,
      offset: found.repairOffset,
      bytes_changed: 1,
      replaced: found.replaced,
    };
    this.recordRecovery({ type: 'log.repaired', stream: 'log/recovery', data: report });
    this.onRepaired?.(report);
    return report;
  }

  /** What recovery did, as a fact of the log's own (actor `system`), written and synced at once, under the lock. */
  private recordRecovery(event: NewEvent): void {
    const { emptyIndex, planAppend, recordWritten, validateBatchNow } = this.writer!;
    const plan = planAppend(
      validateBatchNow(this.catalog, [event]),
      this.index ?? { ...emptyIndex(), seq: this.tail!.seq - 1, hash: this.headHash },
      { now: this.now, defaultActor: 'system', lastId: this.headId },
    );
    if (plan.kind === 'write') {
      this.writeCommitted(plan.events, plan.bytes, true);
      if (this.index) recordWritten(this.index, plan.events, '', undefined);
    }
  }

  /**
   * `baton log repair`: under the lock, what an append would do about the bytes after the committed
   * end, and nothing else: restore a whole last event's newline, or quarantine a torn write.
   */
  async repairTail(): Promise<TailRecovery | undefined> {
    const run = async (): Promise<TailRecovery | undefined> => {
      this.ensureWorkspace();
      const { acquireProcessLock } = await this.loadWriter();
      const lock = await acquireProcessLock(this.lockName, { timeoutMs: this.lockTimeoutMs });
      try {
        const end = this.catchUp();
        return end.uncommittedBytes > 0 ? this.recover(end) : undefined;
      } finally {
        await lock.release();
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Describe what lies after the committed end without changing it, for verify: a write in flight
   * is told from a real tail by looking again under the lock (a writer holds it while it writes).
   */
  private async tailFinding(): Promise<BadPosition | undefined> {
    const look = (): BadPosition | undefined => {
      const { end } = findTail(this.segments());
      if (end.uncommittedBytes === 0) return undefined;
      const located = this.uncommittedTail(end.cursor);
      if (located === undefined) return undefined;
      const found: UncommittedTail = located.found ?? { kind: TailKind.torn, offset: located.offset, bytes: located.size - located.offset, lines: end.uncommittedLines };
      return { seq: end.cursor.seq, offset: located.offset, segment: located.segment.name, reason: describeTail(found), tail: found.kind };
    };
    if (look() === undefined) return undefined;
    const { acquireProcessLock } = await this.loadWriter();
    let lock: Awaited<ReturnType<typeof acquireProcessLock>> | undefined;
    try {
      lock = await acquireProcessLock(this.lockName, { timeoutMs: this.lockTimeoutMs });
    } catch {
      // A writer holding the lock that long: what is there now is the answer.
    }
    try {
      return look();
    } finally {
      await lock?.release();
    }
  }

  /**
   * Load streams and idempotency keys up to the committed end: from the cache when it still matches
   * the log, else by a scan. The index always describes exactly the events before `tail`.
   */
  private ensureIndex(): StoreIndex {
    if (this.index) return this.index;
    const { emptyIndex, IndexBuilder, loadIndexCache } = this.writer!;
    const segments = this.segments();
    // Streams are only trusted from a log checked line by line (a corrupt line refuses the append).
    if (this.tail === undefined) this.checkWholeLog(segments);
    const checked = this.tail!.seq;
    const loaded = loadIndexCache(this.layout.cache, segments);
    const cached = loaded !== undefined && loaded.cursor.seq <= checked ? loaded : undefined;
    const index = cached?.index ?? emptyIndex();
    const cursor = cached?.cursor ?? startCursor(segments);
    this.foldedSinceCache = 0;
    if (cursor) {
      const builder = new IndexBuilder(index);
      const scan = scanFrom(segments, cursor);
      let step = scan.next();
      while (!step.done) {
        builder.add(step.value.event);
        this.foldedSinceCache += 1;
        this.headId = step.value.event.id;
        step = scan.next();
      }
      builder.flush();
      this.tail = step.value.cursor;
      this.headHash = index.hash;
    }
    this.index = index;
    return index;
  }

  // ---- reads --------------------------------------------------------------------------------

  async *read(options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    for await (const run of this.committedRuns(options.from ?? 1, options.to, false)) {
      for (const item of run) if (matchesFilter(item.event, options)) yield item.event;
    }
  }

  async *readChunks(options: ReadOptions = {}): AsyncIterable<readonly StoredEvent[]> {
    const filtered = (options.streams?.length ?? 0) > 0 || (options.types?.length ?? 0) > 0;
    let chunk: StoredEvent[] = [];
    for await (const run of this.committedRuns(options.from ?? 1, options.to, false)) {
      if (!filtered) {
        // Runs are already chunks (up to MAX_RUN events): hand each over as it is.
        yield run.map((item) => item.event);
        continue;
      }
      for (const item of run) {
        if (!matchesFilter(item.event, options)) continue;
        chunk.push(item.event);
        if (chunk.length >= READ_CHUNK) {
          yield chunk;
          chunk = [];
        }
      }
    }
    if (chunk.length > 0) yield chunk;
  }

  /** The stored lines, byte for byte, with their events (for `log show` and export). */
  async *readLines(options: ReadOptions = {}): AsyncGenerator<{ line: string; event: StoredEvent }> {
    for await (const run of this.committedRuns(options.from ?? 1, options.to)) {
      for (const item of run) if (matchesFilter(item.event, options)) yield { line: item.line, event: item.event };
    }
  }

  /**
   * The committed events from `from` to `to` (inclusive), in runs (segment-scan.ts scanRuns). A long
   * read first loads the hasher of the seal-checked blocks' cache (block-hasher.ts), once per process.
   * The scan starts at `from` only when every line before it is known checked (checked-prefix.ts);
   * else where the checked lines end, and the events before `from` are checked and dropped here.
   */
  private async *committedRuns(from: number, to: number | undefined, withLines = true): AsyncGenerator<ScannedEvent[]> {
    const segments = this.segments();
    const first = Math.max(1, from);
    const begin = this.checkedPrefix.startFor(segments, first);
    if (!begin) return;
    const start = begin.cursor;
    const last = to ?? Number.MAX_SAFE_INTEGER;
    const bounds = { sealWorkerMinBytes: this.sealWorkerMinBytes, ...(to !== undefined ? { expectedEvents: Math.max(0, to - Math.min(first, start.seq) + 1) } : {}) };
    const long = readIsLong(segments, start, bounds);
    const hasher = long && this.sealDigests ? await loadBlockHasher() : undefined;
    const scan = scanRuns(segments, start, {
      withLines,
      long,
      ...(hasher ? { sealDigests: SealDigests.load(this.layout.cache, hasher) } : {}),
      ...bounds,
    });
    let checked: ScannedEvent | undefined;
    try {
      for (let step = this.forgettingOnCorrupt(() => scan.next()); !step.done; step = this.forgettingOnCorrupt(() => scan.next())) {
        const run = step.value;
        checked = run[run.length - 1];
        if (run[0]!.event.seq >= first && run[run.length - 1]!.event.seq <= last) {
          yield run;
          // Done at `to`: what follows (maybe a corrupt line) is never read.
          if (run[run.length - 1]!.event.seq === last) return;
          continue;
        }
        const inRange = run.filter((item) => item.event.seq >= first && item.event.seq <= last);
        if (inRange.length > 0) yield inRange;
        if (run[run.length - 1]!.event.seq >= last) return;
      }
    } finally {
      if (checked !== undefined) this.checkedPrefix.extendTo(begin, checked);
    }
  }

  /** A read that meets a corrupt line drops the verified-prefix record, so no writer trusts it. */
  private forgettingOnCorrupt<T>(next: () => T): T {
    try {
      return next();
    } catch (error) {
      if (error instanceof LogCorruptError) {
        forgetVerifiedPrefix(this.layout.cache);
        this.checkedPrefix.forget();
      }
      throw error;
    }
  }

  async head(): Promise<Head> {
    const { end, last } = findTail(this.segments());
    return { seq: end.cursor.seq - 1, hash: last?.hash ?? end.cursor.prevHash ?? GENESIS_HASH };
  }

  async streamVersion(stream: string): Promise<number> {
    await this.loadWriter();
    // Without the lock: catching up reads committed lines only, so the answer is always consistent.
    this.ensureIndex();
    this.catchUp();
    // catchUp drops the index when it had to find the tail afresh (e.g. the first segment appeared
    // since this handle last looked); ask again so a dropped index is rebuilt, never read stale.
    return this.ensureIndex().streams.get(stream) ?? 0;
  }

  subscribe(from: number, handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    let cursor: Cursor | undefined;
    const pull = async (fromSeq: number): Promise<StoredEvent[]> => {
      const segments = this.segments();
      if (!cursor || cursor.seq !== fromSeq || !segments.some((s) => s.name === cursor!.segment.name)) {
        cursor = cursorFor(segments, fromSeq);
      }
      if (!cursor) return [];
      const out: StoredEvent[] = [];
      for (const { event, segment, offset, length } of scanFrom(segments, cursor)) {
        if (event.seq < fromSeq) continue;
        out.push(event);
        cursor = { segment, offset: offset + length, seq: event.seq + 1, prevHash: event.hash };
        if (out.length >= PULL_BATCH) break;
      }
      return out;
    };
    let watcher: FSWatcher | undefined;
    let timer: NodeJS.Timeout | undefined;
    const loop: DeliveryLoop = new DeliveryLoop(from, pull, handler, options, () => {
      watcher?.close();
      if (timer) clearInterval(timer);
      this.subscriptions.delete(loop);
    });
    this.subscriptions.add(loop);
    ensureOwnedDir(this.layout.workspace, this.layout.log, DIR_MODE);
    try {
      if (!this.useFsWatch) throw new Error('fs.watch disabled');
      // Appends by any process change a file in the log directory: a near-instant wake-up.
      watcher = watch(this.layout.log, { persistent: true }, () => loop.poke());
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined;
    }
    // Polling: the fallback where fs.watch is unavailable, and a safety net where it drops events.
    timer = setInterval(() => loop.poke(), watcher ? Math.max(this.pollIntervalMs, 1000) : this.pollIntervalMs);
    loop.poke();
    return loop;
  }

  /** The full checker (zod for what the fast checks cannot settle), loaded when first needed. */
  private async chainChecker(): Promise<ChainChecker> {
    const [{ ChainChecker: Checker }] = await Promise.all([import('../chain-checker.js'), this.catalog.loadSchemas()]);
    return new Checker(this.catalog);
  }

  async verify(): Promise<VerifyReport> {
    const report = await this.verifyCommitted();
    if (!report.ok) return report;
    // The committed log is sound; an unterminated or torn tail after it is still never "ok".
    const tail = await this.tailFinding();
    return tail === undefined ? report : { ...report, ok: false, first_bad: tail };
  }

  /** The committed lines: seq, schema, seals and chain (what follows the last complete batch is tailFinding's). */
  private async verifyCommitted(): Promise<VerifyReport> {
    const segments = this.segments();
    let fallback: string | undefined;
    if (this.parallelVerifyMinBytes !== Number.POSITIVE_INFINITY) {
      let bytes = 0;
      for (const s of segments) bytes += statSync(s.path).size;
      if (bytes >= this.parallelVerifyMinBytes) {
        const { parallelVerify } = await import('./parallel-verify.js');
        const outcome = await parallelVerify(segments, this.catalog, { minRangeBytes: this.parallelVerifyRangeBytes });
        if ('report' in outcome) {
          this.lastVerify = { mode: 'parallel', workers: outcome.workers, ranges: outcome.ranges };
          if (!outcome.report.ok) forgetVerifiedPrefix(this.layout.cache);
          return outcome.report;
        }
        // Not checked on workers (a custom catalog, a worker that failed to start or died): the
        // serial verify below decides, never a partial answer.
        fallback = outcome.fallback;
      }
    }
    this.lastVerify = { mode: 'serial', workers: 0, ranges: 0, ...(fallback !== undefined ? { fallback } : {}) };
    return this.verifySerially(segments);
  }

  /** One pass in this thread; parallel-verify.ts must give exactly this report. */
  private async verifySerially(segments: readonly Segment[]): Promise<VerifyReport> {
    const report = await this.verifyEachLine(segments);
    if (!report.ok) forgetVerifiedPrefix(this.layout.cache);
    return report;
  }

  private async verifyEachLine(segments: readonly Segment[]): Promise<VerifyReport> {
    const checker = await this.chainChecker();
    let pendingBatch = 0;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      if (segment.firstSeq !== checker.headSeq + 1) {
        return {
          ok: false,
          head_seq: checker.headSeq,
          checked: checker.checked,
          first_bad: { seq: checker.headSeq + 1, offset: 0, segment: segment.name, reason: `segment ${segment.name} should start at seq ${checker.headSeq + 1}` },
        };
      }
      const reader = new LineReader(segment.path);
      for (const line of reader.lines()) {
        const result = checker.check(line.text, line.offset, segment.name);
        if (!result.ok) return { ok: false, head_seq: checker.headSeq - pendingBatch, checked: checker.checked, first_bad: result.bad };
        const batchEnd = result.event.batch_end;
        pendingBatch = batchEnd !== undefined && batchEnd > result.event.seq ? pendingBatch + 1 : 0;
      }
      if (reader.tailBytes > 0 && i < segments.length - 1) {
        return {
          ok: false,
          head_seq: checker.headSeq,
          checked: checker.checked,
          first_bad: { seq: checker.headSeq + 1, offset: reader.tailOffset, segment: segment.name, reason: 'unterminated line before the end of the log' },
        };
      }
    }
    // An unterminated last line or an unfinished last batch is a write in flight or torn by a
    // crash: not part of the log, quarantined by the next append.
    return { ok: true, head_seq: checker.headSeq - pendingBatch, checked: checker.checked - pendingBatch, first_bad: null };
  }

  async storageInfo(): Promise<StorageInfo> {
    const segments = this.segments();
    let bytes = 0;
    for (const s of segments) bytes += statSync(s.path).size;
    return { segments: segments.length, bytes };
  }

  /**
   * Load an export into this (empty) store. The events are checked (schema, seq, chain, hash) while
   * they are written to a temporary file; only a fully verified, fsynced file is renamed into place
   * as the first segment, so a failed import commits nothing.
   */
  async importLog(events: AsyncIterable<StoredEvent>): Promise<Head> {
    const run = async (): Promise<Head> => {
      JsonlEventStore.initWorkspace(this.layout.workspace);
      const { acquireProcessLock, serializeEvent } = await this.loadWriter();
      const lock = await acquireProcessLock(this.lockName, { timeoutMs: this.lockTimeoutMs });
      const tempPath = join(this.layout.log, `.import-${process.pid}.tmp`);
      try {
        const end = this.catchUp();
        if (this.tail!.seq !== 1 || end.uncommittedBytes > 0) {
          throw new ConflictError(`the store is not empty (head seq ${this.tail!.seq - 1}); import needs an empty store`);
        }
        const checker = await this.chainChecker();
        const fd = openSync(tempPath, 'w', FILE_MODE);
        let size = 0;
        let last: StoredEvent | undefined;
        try {
          let chunk: string[] = [];
          const flush = (): void => {
            const bytes = Buffer.from(chunk.join(''), 'utf8');
            let written = 0;
            while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
            chunk = [];
          };
          for await (const event of events) {
            const line = serializeEvent(event);
            const result = checker.check(line, size);
            if (!result.ok) throw invalidInput(`event at seq ${result.bad.seq}: ${result.bad.reason}`, 'import');
            chunk.push(line + '\n');
            size += Buffer.byteLength(line) + 1;
            last = event;
            if (chunk.length >= 1000) flush();
          }
          flush();
          fdatasyncSync(fd);
        } finally {
          closeSync(fd);
        }
        if (last) {
          const segment: Segment = { name: segmentName(1), firstSeq: 1, path: join(this.layout.log, segmentName(1)) };
          renameSync(tempPath, segment.path);
          const dirFd = openSync(this.layout.log, 'r');
          try {
            fsyncSync(dirFd);
          } finally {
            closeSync(dirFd);
          }
          this.closeWriteFd();
          // Every line was checked on its way in.
          this.verifiedSegments = [];
          this.tail = { segment, offset: size, seq: last.seq + 1, prevHash: last.hash };
          this.headHash = last.hash;
          this.headId = last.id;
        } else {
          rmSync(tempPath, { force: true });
        }
        this.index = undefined;
        return { seq: last?.seq ?? 0, hash: this.headHash };
      } catch (error) {
        rmSync(tempPath, { force: true });
        throw error;
      } finally {
        await lock.release();
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    await this.queue;
    for (const sub of [...this.subscriptions]) await sub.close();
    this.closeWriteFd();
    this.recordVerifiedPrefix();
    if (this.index && this.foldedSinceCache >= CACHE_EVERY && this.tail) {
      this.writer!.saveIndexCache(this.layout.cache, this.index, this.tail);
      this.foldedSinceCache = 0;
    }
  }
}
