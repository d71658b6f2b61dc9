import { watch, type FSWatcher } from 'node:fs';
import type { StoredEvent } from '../../../events/envelope.js';
import { ensureOwnedDir } from '../../artifacts/owned-paths.js';
import type { EventHandler, SubscribeOptions, Subscription } from '../contract.js';
import { DeliveryLoop } from '../delivery.js';
import { DIR_MODE } from './layout.js';
import type { LogHandle } from './log-handle.js';
import { scanFrom, type Cursor } from './segment-scan.js';
import { cursorFor } from './segment-seek.js';

/** Events a subscription pulls at once. */
const PULL_BATCH = 1000;

/**
 * A subscription on the log: woken by `fs.watch` on the log folder (any process's append changes a
 * file there) and by polling, and by this handle's own appends (log.subscriptions).
 */
export function watchSubscription(
  log: LogHandle,
  from: number,
  handler: EventHandler,
  options: SubscribeOptions,
  settings: { pollIntervalMs: number; useFsWatch: boolean },
): Subscription {
  let cursor: Cursor | undefined;
  const pull = async (fromSeq: number): Promise<StoredEvent[]> => {
    const segments = log.segments();
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
  // Set once the loop that clears it exists (the loop's close callback reads it).
  // eslint-disable-next-line prefer-const
  let timer: NodeJS.Timeout | undefined;
  const loop: DeliveryLoop = new DeliveryLoop(from, pull, handler, options, () => {
    watcher?.close();
    if (timer) clearInterval(timer);
    log.subscriptions.delete(loop);
  });
  log.subscriptions.add(loop);
  ensureOwnedDir(log.layout.workspace, log.layout.log, DIR_MODE);
  try {
    if (!settings.useFsWatch) throw new Error('fs.watch disabled');
    // Appends by any process change a file in the log directory: a near-instant wake-up.
    watcher = watch(log.layout.log, { persistent: true }, () => loop.poke());
    watcher.on('error', () => {
      watcher?.close();
      watcher = undefined;
    });
  } catch {
    watcher = undefined;
  }
  // Polling: the fallback where fs.watch is unavailable, and a safety net where it drops events.
  timer = setInterval(() => loop.poke(), watcher ? Math.max(settings.pollIntervalMs, 1000) : settings.pollIntervalMs);
  loop.poke();
  return loop;
}
