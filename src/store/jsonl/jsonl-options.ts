import type { EventCatalog } from '../../../events/catalog.js';
import type { LogRecoveredData, LogRepairedData } from '../../../events/log.js';

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

export const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
export const DEFAULT_PARALLEL_VERIFY_MIN_BYTES = 32 * 1024 * 1024;
export const DEFAULT_PARALLEL_VERIFY_RANGE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
