import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { batonIn, jsonLines } from '../helpers/cli.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { httpRequest, startServe } from '../helpers/serve.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';
import { newWorkspaceId } from '../postgres/postgres-harness.js';

/**
 * `baton serve` on a PostgreSQL store: the same views as `replay`, and an append made through the
 * CLI (another process) reaches the page's event stream through the store's subscription.
 */
let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});

afterAll(async () => {
  await cluster?.stop();
  removeTempDirs();
});

/** Open the event stream and resolve with the first `head` event whose head_seq reaches `seq`. */
function headReaches(base: string, token: string, seq: number): { opened: Promise<void>; reached: Promise<number> } {
  const url = new URL(base);
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<number>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: '/api/events', headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        open();
        for (const match of text.matchAll(/"head_seq":(\d+)/g)) {
          if (Number(match[1]) >= seq) {
            req.destroy();
            resolve(Number(match[1]));
          }
        }
      });
    });
    req.on('error', (error) => (error.message.includes('aborted') || error.message.includes('socket hang up') ? undefined : reject(error)));
    req.end();
  });
  return { opened, reached };
}

it('serves the replay views of a PostgreSQL log and follows appends by other processes', async () => {
  const dir = makeTempDir('baton-serve-pg-');
  const env = { BATON_STORE_URL: cluster.urlFor(newWorkspaceId('serve')), BATON_NOW: '2026-03-04T05:06:07.000Z' };
  expect((await batonIn(dir, ['init'], { env })).code).toBe(0);
  for (let i = 1; i <= 3; i++)
    expect(
      (await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/pg', '--data', JSON.stringify({ text: `n${i}` })], { env })).code,
    ).toBe(0);
  const served = await startServe(dir, [], { env });
  try {
    expect(served.serving.store).toBe('postgres');
    expect(served.serving.head_seq).toBe(3);
    const auth = { authorization: `Bearer ${served.token}` };
    const replayed = jsonLines((await batonIn(dir, ['replay', '--view', 'log_stats', '--to', '2'], { env })).stdout)[0];
    expect(JSON.parse((await httpRequest(served.base, '/api/view/log_stats?to=2', { headers: auth })).body)).toEqual(replayed);

    const stream = headReaches(served.base, served.token, 4);
    await stream.opened;
    const appended = await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/pg', '--data', '{"text":"live"}'], { env });
    expect(appended.code).toBe(0);
    expect(await stream.reached).toBe(4);
    const live = JSON.parse((await httpRequest(served.base, '/api/dashboard?tab=log', { headers: auth })).body) as {
      position: { seq: number; live: boolean };
      log_stats: { events: number };
    };
    expect(live.position).toMatchObject({ seq: 4, live: true });
    expect(live.log_stats.events).toBe(4);
  } finally {
    await served.stop();
  }
});
