import type { StoredEvent } from '../../events/envelope.js';
import type { EventHandler, SubscribeOptions, Subscription } from './contract.js';

/**
 * A subscription's delivery loop, shared by adapters: pulls batches of events after the last one
 * delivered, hands them to the handler one at a time (awaiting it), and pulls again whenever the
 * adapter signals that the log may have grown. Guarantees order and exactly-once per subscription.
 */
export class DeliveryLoop implements Subscription {
  private nextSeq: number;
  private running = false;
  private again = false;
  private closed = false;
  private resolveCaughtUp!: () => void;
  readonly caughtUp: Promise<void>;

  constructor(
    from: number,
    private readonly pull: (fromSeq: number) => Promise<StoredEvent[]>,
    private readonly handler: EventHandler,
    private readonly options: SubscribeOptions,
    private readonly onClose: () => void | Promise<void>,
  ) {
    this.nextSeq = Math.max(1, from);
    this.caughtUp = new Promise((resolve) => {
      this.resolveCaughtUp = resolve;
    });
  }

  /** Ask for a pull; coalesces signals that arrive while a pull is running. */
  poke(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.run();
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        for (;;) {
          if (this.closed) return;
          const batch = await this.pull(this.nextSeq);
          if (batch.length === 0) break;
          for (const event of batch) {
            if (this.closed) return;
            if (event.seq !== this.nextSeq) continue;
            await this.handler(event);
            this.nextSeq = event.seq + 1;
          }
        }
        this.resolveCaughtUp();
      } while (this.again && !this.closed);
    } catch (error) {
      this.closed = true;
      this.resolveCaughtUp();
      if (this.options.onError) this.options.onError(error);
      await this.onClose();
    } finally {
      this.running = false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.resolveCaughtUp();
    await this.onClose();
  }
}
