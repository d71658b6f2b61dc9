import { closeSync, fsyncSync, openSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { EventCatalog } from '../../../events/catalog.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import type { LogRecoveredData, LogRepairedData } from '../../../events/log.js';
import { assertNoLinkBelow, ensureOwnedDir } from '../../artifacts/owned-paths.js';
import type { DeliveryLoop } from '../delivery.js';
import type { StoreIndex } from '../store-index.js';
import { DIR_MODE, FILE_MODE, segmentName, workspaceLayout, type WorkspaceLayout } from './layout.js';
import { listSegments, type Cursor, type Segment } from './segment-scan.js';
import type { VerifiedSegment } from './verified-prefix-schema.js';
import type * as WriterModules from './writer-modules.js';

/** Create `.baton/` with its folders (0700). Returns whether anything was created. */
export function initJsonlWorkspace(workspace: string): boolean {
  const layout = workspaceLayout(workspace);
  let created = false;
  for (const dir of [layout.root, layout.log, layout.cache, layout.quarantine]) {
    created = ensureOwnedDir(workspace, dir, DIR_MODE) || created;
  }
  return created;
}

/** What the parts of a JSONL store handle share of its settings. */
export interface LogHandleSettings {
  catalog: EventCatalog;
  now: () => string;
  actor: string;
  segmentBytes: number;
  lockTimeoutMs: number;
  onRecovered: ((report: LogRecoveredData) => void) | undefined;
  onRepaired: ((report: LogRepairedData) => void) | undefined;
}

/**
 * What one store handle knows of its log: the committed end as this process last saw it, the
 * streams index when loaded, the descriptor it writes through, and what it checked. The append path,
 * catch-up, recovery and import (their own files) read and move it; the store class only delegates.
 */
export class LogHandle {
  /** Loaded on the first write (writer-modules.ts): reads need none of it. */
  writer: typeof WriterModules | undefined;
  private writerLoading: Promise<typeof WriterModules> | undefined;
  /** The committed end as this process last saw it. */
  tail: Cursor | undefined;
  headHash = GENESIS_HASH;
  /** Id of the last committed event, when known (new ids must sort after it). */
  headId: string | undefined;
  /** Streams and idempotency keys; loaded only when an append or a query needs them. */
  index: StoreIndex | undefined;
  foldedSinceCache = 0;
  writeFd: { fd: number; segment: string } | undefined;
  /** In-process serialisation in front of the cross-process lock. */
  private queue: Promise<unknown> = Promise.resolve();
  readonly subscriptions = new Set<DeliveryLoop>();
  /**
   * The segments this handle checked line by line (or found unchanged since a writer did), from the
   * log's first, with each file's identity when it last matched what was checked (verified-prefix.ts).
   * Set once the tail was found by checking the whole log; undefined while it never was.
   */
  verifiedSegments: VerifiedSegment[] | undefined;
  /** The record as loaded or last saved, to skip rewriting an unchanged one. */
  verifiedSaved = '';
  recordedOnce = false;
  /** The log directory's identity as of construction (process-lock.ts lockIdentity); the lock is named after it. */
  private readonly lockIdentity: string;
  private lockNameCache: string | undefined;
  private foldersChecked = false;
  private workspaceReady = false;

  constructor(
    readonly layout: WorkspaceLayout,
    readonly settings: LogHandleSettings,
  ) {
    try {
      this.lockIdentity = realpathSync(this.layout.log);
    } catch {
      this.lockIdentity = this.layout.log;
    }
  }

  /** The write-side modules, loaded once per handle. */
  loadWriter(): Promise<typeof WriterModules> {
    this.writerLoading ??= import('./writer-modules.js').then((m) => (this.writer = m));
    return this.writerLoading;
  }

  get lockName(): string {
    return (this.lockNameCache ??= this.writer!.lockNameForIdentity(this.lockIdentity));
  }

  /** Runs `work` after every write this handle queued before it, whether they failed or not. */
  serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work, work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Settles once every queued write has. */
  idle(): Promise<unknown> {
    return this.queue;
  }

  /**
   * The log's segments. The first call per handle checks that none of `.baton/`'s own folders is a
   * symlink (owned-paths.ts), so no read or write of this handle is steered to another log.
   */
  segments(): Segment[] {
    if (!this.foldersChecked) {
      for (const dir of [this.layout.log, this.layout.cache, this.layout.quarantine]) assertNoLinkBelow(this.layout.workspace, dir);
      this.foldersChecked = true;
    }
    return listSegments(this.layout.log);
  }

  /** `.baton/` and its folders exist; checked once per handle (four lstat walks on every append would add up). */
  ensureWorkspace(): void {
    if (this.workspaceReady) return;
    initJsonlWorkspace(this.layout.workspace);
    this.workspaceReady = true;
  }

  /** The index as an append plans against it: the loaded one, or an empty one that knows only the head. */
  indexOrHead(): StoreIndex {
    return this.index ?? { ...this.writer!.emptyIndex(), seq: this.tail!.seq - 1, hash: this.headHash };
  }

  /** This handle's open descriptor of `segment`, if it writes there: scans read through it, no open/close under the lock. */
  openDescriptor = (segment: Segment): number | undefined => (this.writeFd?.segment === segment.name ? this.writeFd.fd : undefined);

  fdFor(segment: Segment): number {
    if (this.writeFd?.segment === segment.name) return this.writeFd.fd;
    this.closeWriteFd();
    // Read-write + append: writes always land at the end, and catch-up reads by position.
    const fd = openSync(segment.path, 'a+', FILE_MODE);
    this.writeFd = { fd, segment: segment.name };
    return fd;
  }

  closeWriteFd(): void {
    if (this.writeFd) {
      closeSync(this.writeFd.fd);
      this.writeFd = undefined;
    }
  }

  createSegment(firstSeq: number): Segment {
    const name = segmentName(firstSeq);
    const path = join(this.layout.log, name);
    const fd = openSync(path, 'wx', FILE_MODE);
    fsyncSync(fd);
    closeSync(fd);
    // The new directory entry must be durable before events in it are reported done.
    fsyncDirectory(this.layout.log);
    return { name, firstSeq, path };
  }
}

/** Makes a directory's entries durable (a created, renamed or quarantined file). */
export function fsyncDirectory(path: string): void {
  const dirFd = openSync(path, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
