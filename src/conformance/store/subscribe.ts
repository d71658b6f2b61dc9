import { describe, expect } from 'vitest';
import type { StoredEvent } from '../../../events/envelope.js';
import { sleep } from '../async-checks.js';
import { note, readAll, waitFor, seqsOf, range, type Scenarios } from './harness.js';

/** The store contract on subscriptions: catch-up, live delivery in order and exactly once, close. */
export function describeSubscribe(scenarios: Scenarios): void {
  describe('subscribe', () => {
    catchUpCases(scenarios);
    liveDeliveryCases(scenarios);
  });
}

function catchUpCases({ scenario }: Scenarios): void {
  scenario('catches up from a position, then resolves caughtUp', async ({ store }) => {
    await store.append([note('note/a', '1'), note('note/b', '2'), note('note/c', '3')]);
    // A batch larger than any sensible page, so catch-up must page through it.
    await store.append(Array.from({ length: 1205 }, (_, i) => note('note/bulk', `bulk ${i}`)));
    const delivered: StoredEvent[] = [];
    const sub = store.subscribe(2, (event) => {
      delivered.push(event);
    });
    try {
      await sub.caughtUp;
      expect(seqsOf(delivered)).toEqual(range(2, 1208));
      expect(delivered).toEqual(await readAll(store, { from: 2 }));
    } finally {
      await sub.close();
    }
  });

  scenario('resolves caughtUp on an empty store and from a position beyond the head', async ({ store }) => {
    const seen: number[] = [];
    const empty = store.subscribe(1, (event) => {
      seen.push(event.seq);
    });
    await empty.caughtUp;
    await empty.close();
    await store.append([note('note/a', '1')]);
    const beyond = store.subscribe(5, (event) => {
      seen.push(event.seq);
    });
    await beyond.caughtUp;
    await beyond.close();
    expect(seen).toEqual([]);
  });
}

function liveDeliveryCases({ scenario }: Scenarios): void {
  scenario('delivers live events appended through another handle, in order, each exactly once', async ({ store, openAnother }) => {
    const another = await openAnother();
    await store.append([note('note/a', 'before 1'), note('note/a', 'before 2')]);
    const delivered: StoredEvent[] = [];
    const sub = store.subscribe(1, (event) => {
      delivered.push(event);
    });
    try {
      await sub.caughtUp;
      expect(seqsOf(delivered)).toEqual([1, 2]);
      await another.append([note('note/b', 'live 1')]);
      await another.append([note('note/b', 'live 2'), note('note/c', 'live 3')]);
      await Promise.all([another.append([note('note/a', 'live 4')]), store.append([note('note/a', 'live 5')])]);
      for (let i = 6; i <= 10; i++) await another.append([note('note/b', `live ${i}`)]);
      await waitFor(() => delivered.length >= 12, '12 delivered events');
      await sleep(50);
      expect(seqsOf(delivered)).toEqual(range(1, 12));
      expect(delivered).toEqual(await readAll(store));
    } finally {
      await sub.close();
    }
  });

  scenario('awaits the handler: the next event is not delivered while a handler is still running', async ({ store, openAnother }) => {
    const another = await openAnother();
    await store.append([note('note/a', '1'), note('note/a', '2')]);
    let running = 0;
    let overlapped = false;
    const seen: number[] = [];
    const sub = store.subscribe(1, async (event) => {
      running += 1;
      if (running > 1) overlapped = true;
      await sleep(3);
      seen.push(event.seq);
      running -= 1;
    });
    try {
      await another.append([note('note/a', '3'), note('note/a', '4')]);
      await another.append([note('note/a', '5')]);
      await waitFor(() => seen.length >= 5, '5 handled events');
      expect(seen).toEqual([1, 2, 3, 4, 5]);
      expect(overlapped).toBe(false);
    } finally {
      await sub.close();
    }
  });

  scenario('stops delivering once the subscription is closed', async ({ store, openAnother }) => {
    const another = await openAnother();
    const closedSeen: number[] = [];
    const sub = store.subscribe(1, (event) => {
      closedSeen.push(event.seq);
    });
    await sub.caughtUp;
    await another.append([note('note/a', '1')]);
    await waitFor(() => closedSeen.length === 1, 'the first live event');
    await sub.close();
    // A witness subscription proves the later events were delivered to whoever still listens.
    const witnessSeen: number[] = [];
    const witness = store.subscribe(2, (event) => {
      witnessSeen.push(event.seq);
    });
    try {
      await another.append([note('note/a', '2')]);
      await store.append([note('note/a', '3')]);
      await waitFor(() => witnessSeen.length === 2, 'the witness to see 2 events');
      await sleep(100);
      expect(witnessSeen).toEqual([2, 3]);
      expect(closedSeen).toEqual([1]);
    } finally {
      await witness.close();
    }
  });
}
