import type { Pool, PoolClient } from 'pg';
import type { EventCatalog } from '../../../events/catalog.js';
import type { NewEvent, StoredEvent } from '../../../events/envelope.js';
import { GENESIS_HASH } from '../../../events/patterns.js';
import { ConflictError, IdempotencyConflictError, LogCorruptError } from '../../errors.js';
import { emptySealedColumns, sealBatch, validateBatch, type ValidatedBatch } from '../append-plan.js';
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
import { DeliveryLoop } from '../delivery.js';
import { eventFromLine } from './event-rows.js';
import { batchAppendArguments, oneEventAppendArguments } from './append-arguments.js';
import type { NotificationHub } from './notification-hub.js';
import { FailurePhase, translateFailure } from './pg-failures.js';
import type { PostgresTarget } from './postgres-target.js';
import {
  APPEND_CALL,
  APPEND_ONE_CALL,
  constraintToConflict,
  OPTIMISTIC_ATTEMPTS,
  prepareCall,
  type AppendRow,
  type CallOutcome,
  type KnownHead,
  type PreparedCall,
} from './append-call.js';
import { importRows } from './import-rows.js';
import { checkLink, PAGE, READ_PAGE_SQL, SUBSCRIBE_PAGE_SQL, type LineRow } from './read-rows.js';
import { VERIFY_PAGE_SQL, verifyRows, type VerifyRow } from './verify-rows.js';

export interface PostgresStoreOptions {
  target: PostgresTarget;
  /** Connections that carry `baton.workspace_id` for this workspace (see open-postgres-store.ts). */
  pool: Pool;
  hub: NotificationHub;
  catalog: EventCatalog;
  now: () => string;
  actor: string;
  /** How often subscriptions poll while LISTEN is down (and, slower, as a safety net when it is up). */
  pollIntervalMs?: number;
  /**
   * Test seam: runs inside the append's transaction after its rows are written and before COMMIT.
   * Tests hold a transaction open (or kill its process) here; production code never sets it.
   */
  beforeCommit?: (events: readonly StoredEvent[]) => Promise<void>;
}

/** While LISTEN works, poll this rarely as a safety net; notifications do the real waking. */
const SAFETY_POLL_MS = 1000;

interface HeadRow {
  seq: string;
  hash: string;
  last_id: string;
}

/**
 * The PostgreSQL adapter. Every append is one transaction that locks the workspace's head row
 * (`baton_heads … FOR UPDATE`): that serialises appends per workspace across every process and
 * machine, so `seq` is gap-free and assigned in commit order, the hash chain has one successor per
 * event, and stream versions and idempotency keys are decided against committed state. The
 * database backs each decision with a constraint (primary key on seq, unique stream versions,
 * unique idempotency keys), and row-level security confines every connection to its workspace.
 */
export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres';
  private readonly target: PostgresTarget;
  private readonly pool: Pool;
  private readonly hub: NotificationHub;
  private readonly catalog: EventCatalog;
  private readonly now: () => string;
  private readonly actor: string;
  private readonly pollIntervalMs: number;
  private readonly beforeCommit: ((events: readonly StoredEvent[]) => Promise<void>) | undefined;
  private readonly subscriptions = new Set<DeliveryLoop>();
  private closed = false;
  /** The head this store last saw; appends build on it (a stale one only costs a retry). */
  private knownHead: KnownHead = { seq: 0, hash: GENESIS_HASH, lastId: '' };
  /** This instance's appends, one after the other. */
  private appendQueue: Promise<unknown> = Promise.resolve();

  constructor(options: PostgresStoreOptions) {
    this.target = options.target;
    this.pool = options.pool;
    this.hub = options.hub;
    this.catalog = options.catalog;
    this.now = options.now;
    this.actor = options.actor;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.beforeCommit = options.beforeCommit;
  }

  get workspaceId(): string {
    return this.target.workspaceId;
  }

  // ---- connections ----------------------------------------------------------------------------

  private async connect(): Promise<PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw translateFailure(this.target, error);
    }
  }

  /** Run `body` on one connection; failures of the server become STORE_UNAVAILABLE. */
  private async withClient<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.connect();
    let broken = false;
    try {
      return await body(client);
    } catch (error) {
      const translated = translateFailure(this.target, error);
      broken = translated !== error;
      throw translated;
    } finally {
      client.release(broken);
    }
  }

  /**
   * A transaction on one connection. The caller's body runs between BEGIN and COMMIT; any failure
   * rolls back, so nothing of it is ever visible. `phase` tells a lost connection during COMMIT
   * (outcome unknown) from one before it (nothing written).
   */
  private async inTransaction<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.connect();
    let phase: FailurePhase = FailurePhase.beforeWrite;
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await body(client);
      phase = FailurePhase.commit;
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (phase !== FailurePhase.commit) await client.query('ROLLBACK').catch(() => undefined);
      const translated = translateFailure(this.target, error, phase);
      broken = translated !== error;
      throw translated;
    } finally {
      client.release(broken);
    }
  }

  /** Lock the workspace's head row (creating it on the first write), serialising writers. */
  private async lockHead(client: PoolClient): Promise<{ seq: number; hash: string; lastId: string }> {
    const lock = 'SELECT seq, hash, last_id FROM baton_heads WHERE workspace_id = $1 FOR UPDATE';
    let rows = (await client.query<HeadRow>(lock, [this.target.workspaceId])).rows;
    if (rows.length === 0) {
      await client.query('INSERT INTO baton_heads (workspace_id, seq, hash) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING', [
        this.target.workspaceId,
        GENESIS_HASH,
      ]);
      rows = (await client.query<HeadRow>(lock, [this.target.workspaceId])).rows;
    }
    const row = rows[0]!;
    return { seq: Number(row.seq), hash: row.hash, lastId: row.last_id };
  }

  // ---- append ---------------------------------------------------------------------------------

  /**
   * One call to `baton_append` (a single event through migration 5's one-event form, a batch through
   * migration 3's signature with migration 4's body): one round trip, one commit. The events are built on
   * the head this store last saw (its own last write, or what the function reported); when another
   * writer moved the head first, the function writes nothing and reports the new head, and the
   * events are rebuilt on it. After OPTIMISTIC_ATTEMPTS such misses (sustained contention) the
   * append locks the head first and builds on what it holds, which cannot miss: BEGIN, lock, call,
   * COMMIT. Appends of one store instance queue behind each other, so a process's own appends never
   * make each other miss.
   */
  append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    // A valid batch resolves at once, so batches enter the queue in the order append was called.
    return validateBatch(this.catalog, events, options)
      .then((batch) => {
        const run = this.appendQueue.then(() => this.appendValidated(batch));
        this.appendQueue = run.catch(() => undefined);
        return run;
      })
      .then((result) => {
        if (!result.deduplicated) this.hub.wakeAll();
        return result;
      });
  }

  private async appendValidated(batch: ValidatedBatch): Promise<AppendResult> {
    const call = prepareCall(batch);
    for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      const head = this.knownHead;
      const outcome = this.beforeCommit
        ? await this.inTransaction((client) => this.callAppend(client, call, head))
        : await this.autocommit((client) => this.callAppend(client, call, head));
      if (outcome.kind === 'moved') {
        this.knownHead = outcome.head;
        continue;
      }
      return this.settle(outcome);
    }
    const outcome = await this.inTransaction(async (client) => {
      const head = await this.lockHead(client);
      const locked = await this.callAppend(client, call, head);
      if (locked.kind === 'moved') throw new Error('internal: the head moved while this append held its lock');
      return locked;
    });
    return this.settle(outcome);
  }

  private settle(outcome: Exclude<CallOutcome, { kind: 'moved' }>): AppendResult {
    if (outcome.kind === 'deduplicated') return { events: outcome.events, deduplicated: true };
    this.knownHead = outcome.head;
    return { events: outcome.events, deduplicated: false };
  }

  /**
   * One autocommitted statement. A connection lost during it leaves the outcome unknown (the
   * statement commits on its own), so it is reported in the COMMIT phase.
   */
  private async autocommit<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.connect();
    let broken = false;
    try {
      return await body(client);
    } catch (error) {
      const translated = translateFailure(this.target, error, FailurePhase.commit);
      broken = translated !== error;
      throw translated;
    } finally {
      client.release(broken);
    }
  }

  /** Build the events on `head` and call the function; contract errors are thrown, a moved head returned. */
  private async callAppend(client: PoolClient, call: PreparedCall, head: KnownHead): Promise<CallOutcome> {
    const { batch } = call;
    const columns = emptySealedColumns();
    const plan = sealBatch(batch, head, { now: this.now, defaultActor: this.actor, lastId: head.lastId === '' ? undefined : head.lastId }, columns);
    const n = plan.events.length;
    let row: AppendRow;
    try {
      const workspace = this.target.workspaceId;
      const channel = this.hub.channel;
      const result = await client.query<AppendRow>(
        call.single
          ? { name: 'baton_append_one_v5', text: APPEND_ONE_CALL, values: oneEventAppendArguments(workspace, channel, head, batch, plan.bytes, columns) }
          : { name: 'baton_append_v3', text: APPEND_CALL, values: batchAppendArguments(workspace, channel, head, batch, plan.bytes, columns) },
      );
      row = result.rows[0]!;
    } catch (error) {
      throw constraintToConflict(error, batch);
    }
    switch (row.status) {
      case 'written':
        if (this.beforeCommit) await this.beforeCommit(plan.events);
        return { kind: 'written', events: plan.events, head: { seq: plan.events[n - 1]!.seq, hash: plan.events[n - 1]!.hash, lastId: plan.events[n - 1]!.id } };
      case 'moved':
        return { kind: 'moved', head: { seq: Number(row.head_seq), hash: row.head_hash!, lastId: row.head_last_id ?? '' } };
      case 'deduplicated': {
        const lines = row.lines ?? [];
        return { kind: 'deduplicated', events: lines.map((line, i) => eventFromLine(line, JSON.parse(line).seq as number, i)) };
      }
      case 'idempotency_conflict':
        throw new IdempotencyConflictError(batch.idempotencyKey!);
      case 'conflict': {
        const streamName = row.conflict_stream!;
        const expected = batch.expected.get(streamName)!;
        const actual = row.conflict_actual ?? 0;
        const wanted = expected === 'no_stream' ? 'no stream' : expected === 'stream_exists' ? 'an existing stream' : `version ${expected}`;
        throw new ConflictError(`stream ${streamName} is at version ${actual}, expected ${wanted}`, { stream: streamName, expected, actual });
      }
      default:
        throw new Error(`internal: baton_append answered ${String(row.status)}`);
    }
  }

  // ---- reads ----------------------------------------------------------------------------------

  async *read(options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    for await (const page of this.pages(options)) for (const { event } of page) yield event;
  }

  /** The events of `read`, a page of rows at a time: a fold pays one promise per page, not per event. */
  async *readChunks(options: ReadOptions = {}): AsyncIterable<readonly StoredEvent[]> {
    for await (const page of this.pages(options)) yield page.map((row) => row.event);
  }

  /** The stored lines, byte for byte, with their events (for `log show` and export). */
  async *readLines(options: ReadOptions = {}): AsyncGenerator<{ line: string; event: StoredEvent }> {
    for await (const page of this.pages(options)) yield* page;
  }

  /**
   * The stored lines with their events, a page of rows at a time, never an empty page. An
   * unfiltered read also checks that seq and `prev` run on without a hole: under the head lock no
   * committed prefix can have one, so a hole is a deleted row, reported as LOG_CORRUPT. The rows
   * before a bad one are handed over first, as they would be one by one.
   */
  private async *pages(options: ReadOptions): AsyncGenerator<{ line: string; event: StoredEvent }[]> {
    const to = Math.min(options.to ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    let from = Math.max(1, options.from ?? 1);
    const streams = options.streams && options.streams.length > 0 ? [...options.streams] : null;
    const types = options.types && options.types.length > 0 ? [...options.types] : null;
    const filtered = streams !== null || types !== null;
    let previous: StoredEvent | undefined;
    while (from <= to) {
      const page = await this.withClient((client) => client.query<LineRow>(READ_PAGE_SQL, [this.target.workspaceId, from, to, streams, types]));
      const checked: { line: string; event: StoredEvent }[] = [];
      try {
        for (const row of page.rows) {
          const event = eventFromLine(row.line, row.seq, Number(row.seq) - 1);
          if (!filtered) checkLink(event, previous, from);
          previous = event;
          checked.push({ line: row.line, event });
        }
      } catch (error) {
        if (checked.length > 0) yield checked;
        throw error;
      }
      if (checked.length > 0) yield checked;
      if (page.rows.length < PAGE) return;
      from = Number(page.rows.at(-1)!.seq) + 1;
    }
  }

  /**
   * Run SQL on one of this store's connections, for operators and SQL consumers (the jsonb `data`
   * column, `tx_id`). Row-level security confines it to this workspace like every other query.
   */
  async sql<R extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R[]> {
    return (await this.withClient((client) => client.query<R>(text, params))).rows;
  }

  async head(): Promise<Head> {
    const rows = await this.withClient((client) =>
      client.query<HeadRow>('SELECT seq, hash, last_id FROM baton_heads WHERE workspace_id = $1', [this.target.workspaceId]),
    );
    const row = rows.rows[0];
    return row ? { seq: Number(row.seq), hash: row.hash } : { seq: 0, hash: GENESIS_HASH };
  }

  async streamVersion(stream: string): Promise<number> {
    const rows = await this.withClient((client) =>
      client.query<{ version: number | null }>('SELECT max(stream_version) AS version FROM baton_events WHERE workspace_id = $1 AND stream = $2', [
        this.target.workspaceId,
        stream,
      ]),
    );
    return rows.rows[0]?.version ?? 0;
  }

  // ---- subscribe ------------------------------------------------------------------------------

  /**
   * Catch up by position, then follow. A pull delivers only the gap-free run of events from the
   * next expected seq: an event is never delivered before every event below it is visible.
   *
   * Why this is safe: seq is assigned under the workspace's head-row lock, and PostgreSQL makes a
   * transaction visible before it releases its locks, so the next appender can only assign seq N+1
   * after N is visible — per workspace, seq order is visibility order. Were that ever broken (a
   * writer inserting without the lock, say), the gap-free rule still holds delivery at the first
   * invisible seq until it commits, because seq is gap-free by construction (a rolled-back append
   * leaves its seq to the next one; no sequence object can skip numbers). That is the guarantee
   * the "read below the oldest in-flight transaction" rule (xmin of pg_current_snapshot) gives
   * stores whose positions come from a sequence with holes, without its cost: that rule holds
   * every workspace's readers back behind any long transaction anywhere in the cluster. `tx_id`
   * is still recorded on every row for SQL consumers who want to apply it.
   *
   * A hole below the committed head (the head row moves in the same transaction as the rows) is
   * not in-flight but a deleted event: that stops the subscription with LOG_CORRUPT.
   */
  subscribe(from: number, handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    const pull = async (fromSeq: number): Promise<StoredEvent[]> => {
      const page = await this.withClient((client) => client.query<LineRow & { head: string | null }>(SUBSCRIBE_PAGE_SQL, [this.target.workspaceId, fromSeq]));
      const out: StoredEvent[] = [];
      let expected = fromSeq;
      for (const row of page.rows) {
        if (Number(row.seq) !== expected) break;
        out.push(eventFromLine(row.line, row.seq, expected - 1));
        expected += 1;
      }
      const head = Number(page.rows[0]?.head ?? 0);
      if (out.length === 0 && page.rows.length > 0 && head >= fromSeq) {
        throw new LogCorruptError(`event at seq ${fromSeq} is missing from the log`, {
          seq: fromSeq,
          offset: fromSeq - 1,
          reason: 'missing event (hole in seq)',
        });
      }
      return out;
    };
    // Set once the loop that clears it exists (the loop's close callback reads it).
    // eslint-disable-next-line prefer-const
    let timer: NodeJS.Timeout | undefined;
    const wake = (): void => loop.poke();
    const loop: DeliveryLoop = new DeliveryLoop(from, pull, handler, options, async () => {
      if (timer) clearInterval(timer);
      this.subscriptions.delete(loop);
      await this.hub.remove(wake);
    });
    this.subscriptions.add(loop);
    this.hub.add(wake);
    let lastPoll = Date.now();
    // Polling: the fallback while LISTEN is down, and a slow safety net while it is up.
    timer = setInterval(() => {
      const now = Date.now();
      if (!this.hub.live || now - lastPoll >= SAFETY_POLL_MS) {
        lastPoll = now;
        loop.poke();
      }
    }, this.pollIntervalMs);
    loop.poke();
    return loop;
  }

  // ---- verify, storage ------------------------------------------------------------------------

  /**
   * Walk the whole log: each stored line through the chain checker, then each row's columns against
   * its line, then the head row against the last event (verify-rows.ts).
   */
  verify(): Promise<VerifyReport> {
    const page = (after: number): Promise<VerifyRow[]> =>
      this.withClient(async (client) => (await client.query<VerifyRow>(VERIFY_PAGE_SQL, [this.target.workspaceId, after])).rows);
    return verifyRows(this.catalog, page, () => this.head());
  }

  async storageInfo(): Promise<StorageInfo> {
    const rows = await this.withClient((client) =>
      // Bytes as the log's lines would take in a JSONL export (line + newline), comparable across adapters.
      client.query<{ bytes: string }>('SELECT coalesce(sum(octet_length(line) + 1), 0)::bigint AS bytes FROM baton_events WHERE workspace_id = $1', [
        this.target.workspaceId,
      ]),
    );
    return { segments: 0, bytes: Number(rows.rows[0]?.bytes ?? 0) };
  }

  // ---- import ---------------------------------------------------------------------------------

  /**
   * Load an export into this empty workspace in one transaction: every event passes the chain
   * checker before it is inserted, stream versions and idempotency keys are rebuilt from the
   * events, and any failure rolls the whole import back.
   */
  importLog(events: AsyncIterable<StoredEvent>): Promise<Head> {
    const ws = this.target.workspaceId;
    return this.inTransaction(async (client) => {
      const head = await this.lockHead(client);
      return importRows(client, { workspaceId: ws, catalog: this.catalog, channel: this.hub.channel, head: head.seq }, events);
    }).then((head) => {
      this.hub.wakeAll();
      return head;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const sub of [...this.subscriptions]) await sub.close();
    await this.hub.close();
    await this.pool.end();
  }
}
