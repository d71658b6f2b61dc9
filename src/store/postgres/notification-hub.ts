import { createHash } from 'node:crypto';
import type { Client } from 'pg';

/**
 * LISTEN/NOTIFY wake-ups for one workspace's subscriptions. Appends `pg_notify` the workspace's
 * channel inside their transaction, so the notification is sent exactly when the events become
 * visible. A notification carries no event: it only says "pull again", and subscribers catch up
 * by position, so a lost or coalesced notification costs latency, never an event. One dedicated
 * connection per store serves all its subscriptions; while it is down, subscriptions poll.
 */

/** The channel of a workspace: a hash, so channel names stay valid identifiers whatever the id. */
export function channelFor(workspaceId: string): string {
  return `baton_${createHash('sha256').update(workspaceId).digest('hex').slice(0, 32)}`;
}

const RECONNECT_MS = 2000;

export class NotificationHub {
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly wakers = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly newClient: () => Client,
    readonly channel: string,
  ) {}

  /** True while LISTEN is in place: polling can then be a slow safety net. */
  get live(): boolean {
    return this.client !== undefined;
  }

  add(wake: () => void): void {
    this.wakers.add(wake);
    this.ensureListening();
  }

  async remove(wake: () => void): Promise<void> {
    this.wakers.delete(wake);
    if (this.wakers.size === 0) await this.stop();
  }

  /** Wake every subscription of this process (its own appends need no round trip). */
  wakeAll(): void {
    for (const wake of this.wakers) wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakers.clear();
    await this.stop();
  }

  private ensureListening(): void {
    if (this.client || this.connecting || this.closed || this.wakers.size === 0) return;
    const client = this.newClient();
    this.connecting = (async () => {
      try {
        client.on('notification', () => this.wakeAll());
        client.on('error', () => this.lost(client));
        client.on('end', () => this.lost(client));
        await client.connect();
        await client.query(`LISTEN "${this.channel}"`);
        if (this.closed || this.wakers.size === 0) {
          await client.end().catch(() => undefined);
          return;
        }
        this.client = client;
        // Events appended between the subscription's last pull and LISTEN taking effect.
        this.wakeAll();
      } catch {
        await client.end().catch(() => undefined);
        this.scheduleReconnect();
      } finally {
        this.connecting = undefined;
      }
    })();
  }

  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => undefined);
    this.wakeAll();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.wakers.size === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.ensureListening();
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }

  private async stop(): Promise<void> {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }
}
