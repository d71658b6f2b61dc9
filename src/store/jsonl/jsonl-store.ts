import { statSync } from 'node:fs';
import type { EventCatalog } from '../../../events/catalog.js';
import type { NewEvent, StoredEvent } from '../../../events/envelope.js';
import { builtInCatalog } from '../../../events/builtin-catalog.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { invalidInput } from '../../errors.js';
import type {
  AppendOptions,
  AppendResult,
  EventHandler,
  EventStore,
  Head,
  ReadOptions,
  StorageInfo,
  SubscribeOptions,
  Subscription,
  VerifyReport,
} from '../contract.js';
import { matchesFilter } from '../read-filter.js';
import { appendEvents } from './append-path.js';
import { catchUp, ensureIndex } from './catch-up.js';
import { CheckedPrefix } from './checked-prefix.js';
import { committedRuns, type RunsReader } from './committed-runs.js';
import { importLog } from './import-log.js';
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  DEFAULT_PARALLEL_VERIFY_MIN_BYTES,
  DEFAULT_PARALLEL_VERIFY_RANGE_BYTES,
  DEFAULT_SEGMENT_BYTES,
  type JsonlStoreOptions,
  type TailRecovery,
  type VerifyRun,
} from './jsonl-options.js';
import { workspaceLayout, type WorkspaceLayout } from './layout.js';
import { initJsonlWorkspace, LogHandle } from './log-handle.js';
import { DEFAULT_SEAL_WORKER_MIN_BYTES } from './seal-checker.js';
import { findTail } from './segment-seek.js';
import { repairTail, tailFinding } from './tail-recovery.js';
import { recordVerifiedPrefix } from './verified-record.js';
import { verifyCommitted } from './verify-log.js';
import { watchSubscription } from './watch-subscription.js';

export type { JsonlStoreOptions, TailRecovery, VerifyRun } from './jsonl-options.js';

const READ_CHUNK = 256;
/** Re-save the index cache once this many events were folded since it was last written. */
const CACHE_EVERY = 1000;

/**
 * The embedded default adapter: the log as newline-terminated canonical JSON lines in segment files
 * under `.baton/log/`. One batch = one `write()` on an O_APPEND descriptor + one `fdatasync`, under
 * the cross-process lock that assigns seq and the hash chain.
 *
 * This class is the contract's face; each concern lives in its own file: the append path
 * (append-path.ts, commit-write.ts), catching up with other processes (catch-up.ts), crash recovery
 * of the tail (tail-recovery.ts), what a writer checked (verified-record.ts), reads
 * (committed-runs.ts), subscriptions (watch-subscription.ts), verify (verify-log.ts) and import
 * (import-log.ts), all over the handle's shared view of its log (log-handle.ts).
 */
export class JsonlEventStore implements EventStore {
  readonly kind = 'jsonl';
  readonly layout: WorkspaceLayout;
  private readonly log: LogHandle;
  private readonly catalog: EventCatalog;
  private readonly pollIntervalMs: number;
  private readonly useFsWatch: boolean;
  private readonly sealWorkerMinBytes: number;
  private readonly sealDigests: boolean;
  private readonly parallelVerifyMinBytes: number;
  private readonly parallelVerifyRangeBytes: number;
  /** How the last verify() ran (see VerifyRun). */
  lastVerify: VerifyRun | undefined;
  /** How far reads may skip lines as already checked (checked-prefix.ts). */
  private readonly checkedPrefix: CheckedPrefix;

  constructor(workspace: string, options: JsonlStoreOptions = {}) {
    this.layout = workspaceLayout(workspace);
    this.checkedPrefix = new CheckedPrefix(this.layout.cache);
    // Without a catalog: the built-in one, which loads zod only to word an error.
    this.catalog = options.catalog ?? builtInCatalog();
    const now = options.now ?? (() => new Date().toISOString());
    const actor = options.actor ?? 'system';
    const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.useFsWatch = options.useFsWatch ?? true;
    this.sealWorkerMinBytes = options.sealWorkerMinBytes ?? DEFAULT_SEAL_WORKER_MIN_BYTES;
    this.sealDigests = options.sealDigests ?? true;
    if (!(this.sealWorkerMinBytes >= 0)) throw invalidInput('must be a number of bytes ≥ 0 (Infinity: never)', 'sealWorkerMinBytes');
    this.parallelVerifyMinBytes = options.parallelVerifyMinBytes ?? DEFAULT_PARALLEL_VERIFY_MIN_BYTES;
    if (!(this.parallelVerifyMinBytes >= 0)) throw invalidInput('must be a number of bytes ≥ 0 (Infinity: never)', 'parallelVerifyMinBytes');
    this.parallelVerifyRangeBytes = options.parallelVerifyRangeBytes ?? DEFAULT_PARALLEL_VERIFY_RANGE_BYTES;
    if (!Number.isSafeInteger(this.parallelVerifyRangeBytes) || this.parallelVerifyRangeBytes < 1) {
      throw invalidInput('must be a whole number of bytes ≥ 1', 'parallelVerifyRangeBytes');
    }
    this.log = new LogHandle(this.layout, {
      catalog: this.catalog,
      now,
      actor,
      segmentBytes,
      lockTimeoutMs,
      onRecovered: options.onRecovered,
      onRepaired: options.onRepaired,
    });
  }

  /** Create `.baton/` with its folders (0700). Returns whether anything was created. */
  static initWorkspace(workspace: string): boolean {
    return initJsonlWorkspace(workspace);
  }

  // ---- writes -------------------------------------------------------------------------------

  append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    return appendEvents(this.log, events, options, (from, to) => this.read({ from, to }));
  }

  /**
   * `baton log repair`: under the lock, what an append would do about the bytes after the committed
   * end, and nothing else: restore a whole last event's newline, or quarantine a torn write.
   */
  repairTail(): Promise<TailRecovery | undefined> {
    return repairTail(this.log);
  }

  /**
   * Load an export into this (empty) store. The events are checked (schema, seq, chain, hash) while
   * they are written to a temporary file; only a fully verified, fsynced file is renamed into place
   * as the first segment, so a failed import commits nothing.
   */
  async importLog(events: AsyncIterable<StoredEvent>): Promise<Head> {
    return importLog(this.log, events);
  }

  // ---- reads --------------------------------------------------------------------------------

  async *read(options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    for await (const run of committedRuns(this.runsReader(), options.from ?? 1, options.to, false)) {
      for (const item of run) if (matchesFilter(item.event, options)) yield item.event;
    }
  }

  async *readChunks(options: ReadOptions = {}): AsyncIterable<readonly StoredEvent[]> {
    const filtered = (options.streams?.length ?? 0) > 0 || (options.types?.length ?? 0) > 0;
    let chunk: StoredEvent[] = [];
    for await (const run of committedRuns(this.runsReader(), options.from ?? 1, options.to, false)) {
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
    for await (const run of committedRuns(this.runsReader(), options.from ?? 1, options.to)) {
      for (const item of run) if (matchesFilter(item.event, options)) yield { line: item.line, event: item.event };
    }
  }

  /** What a read needs of this handle; the segments are listed as the read starts. */
  private runsReader(): RunsReader {
    return {
      segments: this.log.segments(),
      cacheDir: this.layout.cache,
      checkedPrefix: this.checkedPrefix,
      sealWorkerMinBytes: this.sealWorkerMinBytes,
      sealDigests: this.sealDigests,
    };
  }

  async head(): Promise<Head> {
    const { end, last } = findTail(this.log.segments());
    return { seq: end.cursor.seq - 1, hash: last?.hash ?? end.cursor.prevHash ?? GENESIS_HASH };
  }

  async streamVersion(stream: string): Promise<number> {
    await this.log.loadWriter();
    // Without the lock: catching up reads committed lines only, so the answer is always consistent.
    ensureIndex(this.log);
    catchUp(this.log);
    // catchUp drops the index when it had to find the tail afresh (e.g. the first segment appeared
    // since this handle last looked); ask again so a dropped index is rebuilt, never read stale.
    return ensureIndex(this.log).streams.get(stream) ?? 0;
  }

  subscribe(from: number, handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    return watchSubscription(this.log, from, handler, options, { pollIntervalMs: this.pollIntervalMs, useFsWatch: this.useFsWatch });
  }

  async verify(): Promise<VerifyReport> {
    const settings = {
      catalog: this.catalog,
      cacheDir: this.layout.cache,
      parallelVerifyMinBytes: this.parallelVerifyMinBytes,
      parallelVerifyRangeBytes: this.parallelVerifyRangeBytes,
    };
    const report = await verifyCommitted(this.log.segments(), settings, (run) => (this.lastVerify = run));
    if (!report.ok) return report;
    // The committed log is sound; an unterminated or torn tail after it is still never "ok".
    const tail = await tailFinding(this.log);
    return tail === undefined ? report : { ...report, ok: false, first_bad: tail };
  }

  async storageInfo(): Promise<StorageInfo> {
    const segments = this.log.segments();
    let bytes = 0;
    for (const s of segments) bytes += statSync(s.path).size;
    return { segments: segments.length, bytes };
  }

  async close(): Promise<void> {
    const log = this.log;
    await log.idle();
    for (const sub of [...log.subscriptions]) await sub.close();
    log.closeWriteFd();
    recordVerifiedPrefix(log);
    if (log.index && log.foldedSinceCache >= CACHE_EVERY && log.tail) {
      log.writer!.saveIndexCache(log.layout.cache, log.index, log.tail);
      log.foldedSinceCache = 0;
    }
  }
}
