import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, StoredEvent } from '../../events/envelope.js';
import type { EventStore } from '../../src/store/contract.js';
import type { PostgresEventStore } from '../../src/store/postgres/postgres-store.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { newWorkspaceId, openOn } from './postgres-harness.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/pg-held-append.ts', import.meta.url));

let cluster: PostgresCluster;
let store: PostgresEventStore;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

const note = (stream: string, text: string): NewEvent => ({ type: 'note.recorded', stream, data: { text } });

async function readAll(s: EventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of s.read()) out.push(event);
  return out;
}

describe('postgres: a writer killed mid-transaction', () => {
  it('leaves nothing half-written visible: not its events, its head move, nor its idempotency key', async () => {
    const workspace = newWorkspaceId('killed');
    store = await openOn(cluster, workspace);
    await store.append([note('note/a', 'one'), note('note/a', 'two')]);
    const before = await readAll(store);
    const delivered: number[] = [];
    const sub = store.subscribe(1, (event) => {
      delivered.push(event.seq);
    });

    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, cluster.urlFor(workspace)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    let out = '';
    child.stdout.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('\n')) resolve();
      });
      child.once('exit', () => reject(new Error(`the writer exited before writing: ${out}`)));
    });
    // The child holds a transaction that has inserted seq 3..5 and moved the head row.
    expect(out.trim()).toBe('written 3..5');
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // The server notices the dropped connection and rolls the transaction back; once it has, the
    // head row is free again and the next append takes seq 3.
    const next = await store.append([note('note/b', 'after the crash')], { expectedVersion: 'no_stream' });
    expect(next.events[0]!.seq).toBe(3);
    expect(next.events[0]!.prev).toBe(before.at(-1)!.hash);
    const after = await readAll(store);
    expect(after).toEqual([...before, ...next.events]);
    expect(after.some((e) => e.stream === 'note/doomed')).toBe(false);
    expect(await store.streamVersion('note/doomed')).toBe(0);
    // The doomed batch's key was never taken: using it now writes.
    const keyed = await store.append([note('note/c', 'key is free')], { idempotencyKey: 'doomed-key' });
    expect(keyed.deduplicated).toBe(false);
    expect(await store.verify()).toEqual({ ok: true, head_seq: 4, checked: 4, first_bad: null });
    const deadline = Date.now() + 10_000;
    while (delivered.length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await sub.close();
    expect(delivered).toEqual([1, 2, 3, 4]);
  });
});
