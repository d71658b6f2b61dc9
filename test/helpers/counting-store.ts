import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import { BatonAppContext } from '../../src/app/app-context.js';
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
} from '../../src/store/contract.js';

/** A store that counts every call that reads the log (a pass, a head, a subscription): how a test proves a command reads it once. */
export class CountingStore implements EventStore {
  readonly kind: string;
  reads = 0;
  constructor(private readonly inner: EventStore) {
    this.kind = inner.kind;
  }
  append(events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult> {
    return this.inner.append(events, options);
  }
  read(options?: ReadOptions): AsyncIterable<StoredEvent> {
    this.reads++;
    return this.inner.read(options);
  }
  head(): Promise<Head> {
    this.reads++;
    return this.inner.head();
  }
  streamVersion(stream: string): Promise<number> {
    return this.inner.streamVersion(stream);
  }
  subscribe(from: number, handler: EventHandler, options?: SubscribeOptions): Subscription {
    this.reads++;
    return this.inner.subscribe(from, handler, options);
  }
  verify(): Promise<VerifyReport> {
    return this.inner.verify();
  }
  storageInfo(): Promise<StorageInfo> {
    return this.inner.storageInfo();
  }
  importLog(events: AsyncIterable<StoredEvent>): Promise<Head> {
    return this.inner.importLog(events);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** An application context whose store counts the passes over the log (`counting.reads`). */
export class CountingContext extends BatonAppContext {
  counting: CountingStore | undefined;
  override async store(): Promise<EventStore> {
    const store = await super.store();
    this.counting ??= new CountingStore(store);
    return this.counting;
  }
}
