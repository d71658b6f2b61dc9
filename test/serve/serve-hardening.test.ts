import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalog } from '../../events/index.js';
import { DashboardViews } from '../../src/serve/dashboard-views.js';
import { listen, type RunningServer } from '../../src/serve/server.js';
import { MemoryEventStore } from '../../src/store/memory-store.js';
import { batonIn } from '../helpers/cli.js';
import { httpRequest, rawRequest, startServe, type Served } from '../helpers/serve.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

/**
 * `baton serve` hardened: a request target it cannot decode is a 400 that names what was
 * malformed (never a 500, never a silently different value); a request whose Host does not name
 * the server (DNS rebinding) is a 421 with no data; and thousands of event streams opened and
 * closed leave the server's memory, connections, timers and stream count where they were.
 */
const NOW = (minute: number): Record<string, string> => ({ BATON_NOW: `2026-11-20T10:${String(minute).padStart(2, '0')}:00Z` });

let dir: string;
let served: Served;

beforeAll(async () => {
  dir = makeTempDir('baton-serve-hard-');
  await batonIn(dir, ['init'], { env: NOW(0) });
  for (let i = 1; i <= 2; i++)
    await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', JSON.stringify({ text: `note ${i}` })], { env: NOW(i) });
  served = await startServe(dir, [], { env: NOW(30) });
});

afterAll(async () => {
  await served?.stop();
  removeTempDirs();
});

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * One GET (or `method`) to the served dashboard (or the one on `port`) with the Host header given
 * (`null`: none at all) and its bearer token (`token: null`: none). An event stream is answered by
 * its headers: the body is not waited for.
 */
function ask(path: string, host: string | null, options: { method?: string; token?: string | null; port?: number } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const token = options.token === undefined ? served.token : options.token;
    const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
    if (host !== null) headers['host'] = host;
    const req = request(
      { host: '127.0.0.1', port: options.port ?? served.serving.port, path, method: options.method ?? 'GET', headers, setHost: false, agent: false },
      (res) => {
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          req.destroy();
          return resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Bytes written on a socket as given (two Host lines): the status and the body. */
function rawExchange(port: number, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), body: answer.slice(answer.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
  });
}

describe('malformed percent-encoding', () => {
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${served.token}` });

  it('a path or a query value that does not decode is 400 INVALID_INPUT naming the path or the parameter', async () => {
    const cases: readonly { path: string; field: string; malformed: string }[] = [
      { path: '/api/view/%', field: 'path', malformed: '/api/view/%' },
      { path: '/api/view/%E0%A4%A', field: 'path', malformed: '/api/view/%E0%A4%A' },
      { path: '/api/view/log_stats%ZZ?to=1', field: 'path', malformed: '/api/view/log_stats%ZZ' },
      // Escapes that are well formed but do not spell UTF-8 (a lone continuation byte, an overlong form).
      { path: '/api/view/%80', field: 'path', malformed: '/api/view/%80' },
      { path: '/api/view/%C0%AF', field: 'path', malformed: '/api/view/%C0%AF' },
      { path: '/%', field: 'path', malformed: '/%' },
      { path: '/api/log?type=%', field: 'type', malformed: '%' },
      { path: '/api/log?stream=note%2Fops%E0%A4%A', field: 'stream', malformed: 'note%2Fops%E0%A4%A' },
      { path: '/api/dashboard?tab=log&to=%FF', field: 'to', malformed: '%FF' },
      { path: '/api/view/log_stats?to=1&ta%rget=x', field: 'query', malformed: 'ta%rget=x' },
      { path: '/app.js?v=%G1', field: 'v', malformed: '%G1' },
    ];
    for (const { path, field, malformed } of cases) {
      const answer = await httpRequest(served.base, path, { headers: auth() });
      expect(answer.status, path).toBe(400);
      expect(answer.headers['content-type'], path).toBe('application/json; charset=utf-8');
      const body = JSON.parse(answer.body) as { message: string };
      expect(body, path).toMatchObject({ v: 1, type: 'error', code: 'INVALID_INPUT' });
      expect(body.message, path).toBe(`${field}: malformed percent-encoding in "${malformed}" (a % must start a %XX escape, and the escapes must spell UTF-8)`);
    }
    // Well-formed escapes still mean what they spell.
    expect((await httpRequest(served.base, '/api/view/log%5Fstats?to=%31', { headers: auth() })).body).toContain('"events":1');
    expect((await httpRequest(served.base, '/api/log?stream=note%2Fops&type=note.recorded', { headers: auth() })).status).toBe(200);
  });

  it('a target starting with // is a path, not an authority the parser may refuse (404, not 500); an absolute URL is 400', async () => {
    for (const target of ['//[', '//a:b/x', '//a:99999/api/status']) {
      const answer = await rawRequest(served.base, target, served.token);
      expect(answer.status, target).toBe(404);
      expect(JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4)), target).toMatchObject({ code: 'NOT_FOUND' });
    }
    // The absolute form is what a proxy is sent: read as a path, its authority would go unchecked.
    const absolute = await rawRequest(served.base, `http://127.0.0.1:${served.serving.port}/api/status`, served.token);
    expect(absolute.status).toBe(400);
    expect(JSON.parse(absolute.text.slice(absolute.text.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/^path: must be a path starting with "\/"/),
    });
  });
});

describe('the Host header (DNS rebinding)', () => {
  const paths = ['/', '/app.js', '/api/dashboard', '/api/view/log_stats', '/api/log', '/api/status', '/api/verify', '/api/events'];

  it('bound to loopback, only 127.0.0.1, localhost and [::1] with the bound port are served; anything else is 421 MISDIRECTED_REQUEST with a JSON error and no data', async () => {
    const port = served.serving.port;
    // Pages, API and the event stream alike.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LocalHost:${port}`]) {
      for (const path of paths) expect((await ask(path, host)).status, `${host} ${path}`).toBe(200);
    }
    const refused = [
      null,
      `evil.example:${port}`,
      `evil.example`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `localhost:${port}.evil.example`,
      `evil.example@127.0.0.1:${port}`,
      `127.0.0.1:${port}/x`,
      '',
    ];
    for (const host of refused) {
      for (const path of [...paths, `/?token=${served.token}`, '/nope']) {
        const answer = await ask(path, host);
        expect(answer.status, `${host} ${path}`).toBe(421);
        expect(answer.headers['content-type'], `${host} ${path}`).toBe('application/json; charset=utf-8');
        expect(answer.headers['set-cookie'], `${host} ${path}`).toBeUndefined();
        const body = JSON.parse(answer.body) as Record<string, unknown>;
        expect(body, `${host} ${path}`).toMatchObject({ v: 1, type: 'error', code: 'MISDIRECTED_REQUEST' });
        expect(Object.keys(body).sort(), `${host} ${path}`).toEqual(['code', 'generated_at', 'message', 'type', 'v']);
      }
    }
    // Before the method check and the token check: a rebinding page learns nothing from either.
    expect((await ask('/api/dashboard', `evil.example:${port}`, { method: 'POST' })).status).toBe(421);
    expect((await ask('/api/dashboard', `evil.example:${port}`, { token: null })).status).toBe(421);
    // Two Host lines: which one is meant cannot be told.
    const twice = await rawExchange(
      port,
      `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example:${port}\r\nAuthorization: Bearer ${served.token}\r\nConnection: close\r\n\r\n`,
    );
    expect(twice.status).toBe(421);
    expect(JSON.parse(twice.body)).toMatchObject({ code: 'MISDIRECTED_REQUEST' });
    const evilFirst = await rawExchange(
      port,
      `GET /api/status HTTP/1.1\r\nHost: evil.example:${port}\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${served.token}\r\nConnection: close\r\n\r\n`,
    );
    expect(evilFirst.status).toBe(421);
  });

  it('bound to every address (--host 0.0.0.0) any well-formed Host is served, but only with the token; a missing Host is still 421', async () => {
    const exposed = await startServe(dir, ['--host', '0.0.0.0'], { env: NOW(30) });
    try {
      const port = exposed.serving.port;
      const withToken = { port, token: exposed.token };
      for (const host of [`dashboard.lan:${port}`, `192.168.1.20:8080`, `127.0.0.2:${port}`]) {
        expect((await ask('/api/status', host, withToken)).status, host).toBe(200);
        expect((await ask('/api/events', host, withToken)).status, host).toBe(200);
        expect((await ask('/api/status', host, { port, token: null })).status, host).toBe(401);
      }
      const missing = await ask('/api/status', null, withToken);
      expect(missing.status).toBe(421);
      expect(JSON.parse(missing.body)).toMatchObject({ v: 1, type: 'error', code: 'MISDIRECTED_REQUEST' });
      expect((await ask('/api/status', 'evil.example@127.0.0.1', withToken)).status).toBe(421);
    } finally {
      await exposed.stop();
    }
  });
});

describe('event streams opened and closed by the thousand', () => {
  /** `gc()` in this process: vitest's workers are not started with --expose-gc. */
  function exposeGc(): () => void {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  }

  const STREAMS_AT_ONCE = 100;
  /**
   * What may remain after 3,000 streams: 2 MiB, about 700 bytes a stream. A stream the server keeps
   * (in its set of streams, through a listener or a keep-alive timer) holds its request, response
   * and socket, about 6 KB: 3,000 of them are some 17 MB. What still settles after the warm-up (JIT
   * code, V8's caches) measured 0.3 to 0.6 MB here.
   */
  const MARGIN_BYTES = 2 * 1024 * 1024;

  it('return the heap, the connections, the timers and the count of open streams to their level after a warm-up', async () => {
    const gc = exposeGc();
    const catalog = createCatalog();
    const store = new MemoryEventStore({ catalog });
    await store.append([{ type: 'note.recorded', stream: 'note/ops', data: { text: 'first' } }]);
    const clock = (): string => '2026-11-20T10:00:00.000Z';
    const views = new DashboardViews({ store, catalog, replayArgs: {}, clock });
    const failures: unknown[] = [];
    await views.start((error) => failures.push(error));
    const running = await listen({ views, store, assets: new Map(), workspace: '/nowhere', clock, token: 'memory-test-token' }, '127.0.0.1', 0);
    try {
      const openBatch = async (): Promise<void> => {
        const streams = await Promise.all(Array.from({ length: STREAMS_AT_ONCE }, () => openStream(running)));
        expect(running.openEventStreams()).toBe(STREAMS_AT_ONCE);
        // An append while they are open: the server writes the new head to every one of them.
        const seq = (await store.append([{ type: 'note.recorded', stream: 'note/ops', data: { text: 'burst' } }])).events[0]!.seq;
        await Promise.all(streams.map((stream) => stream.headReaches(seq)));
        await Promise.all(streams.map((stream) => stream.abort()));
      };
      const run = async (count: number): Promise<void> => {
        for (let opened = 0; opened < count; opened += STREAMS_AT_ONCE) await openBatch();
        await allClosed(running);
      };
      const level = async (): Promise<{ heapUsed: number; timers: number; connections: number; streams: number }> => {
        for (let i = 0; i < 6; i++) {
          gc();
          // Let the callbacks of what was collected (closed handles, weak references) run.
          await new Promise((resolve) => setImmediate(resolve));
        }
        return {
          heapUsed: process.memoryUsage().heapUsed,
          timers: timeoutCount(),
          connections: await connectionCount(running),
          streams: running.openEventStreams(),
        };
      };

      await run(2_000);
      const before = await level();
      await run(3_000);
      const after = await level();

      expect(failures).toEqual([]);
      expect(after.streams).toBe(0);
      expect(after.connections).toBe(0);
      expect(after.timers).toBe(before.timers);
      expect(after.heapUsed - before.heapUsed, `heapUsed ${before.heapUsed} → ${after.heapUsed}`).toBeLessThan(MARGIN_BYTES);
    } finally {
      await running.close();
      await views.close();
    }
  }, 180_000);
});

interface OpenStream {
  /** Resolves when a `head` event with head_seq ≥ seq has arrived. */
  headReaches(seq: number): Promise<void>;
  /** The client goes away; resolves when its socket is closed. */
  abort(): Promise<void>;
}

/** An `/api/events` stream, resolved once its first `head` event has arrived. */
function openStream(running: RunningServer): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: running.port, path: '/api/events', headers: { authorization: `Bearer ${running.token}` }, agent: false },
      (res) => {
        let pending = '';
        let highest = 0;
        let waiting: { seq: number; done: () => void }[] = [];
        const closed = new Promise<void>((done) => res.socket.once('close', () => done()));
        const stream: OpenStream = {
          headReaches: (seq) => (highest >= seq ? Promise.resolve() : new Promise<void>((done) => waiting.push({ seq, done }))),
          abort: () => {
            req.destroy();
            return closed;
          },
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          // Complete events only: the last piece may be cut in the middle.
          const events = (pending + chunk).split('\n\n');
          pending = events.pop()!;
          for (const event of events) {
            const seq = /"head_seq":(\d+)/.exec(event)?.[1];
            if (seq !== undefined) highest = Math.max(highest, Number(seq));
          }
          for (const wait of waiting) if (highest >= wait.seq) wait.done();
          waiting = waiting.filter((wait) => highest < wait.seq);
          if (events.length > 0) resolve(stream);
        });
      },
    );
    // Destroying the request is how the client leaves: that error is expected.
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    req.end();
  });
}

/** Wait until the server has seen every stream close (its side of a closed socket comes a moment later). */
async function allClosed(running: RunningServer): Promise<void> {
  while (running.openEventStreams() > 0 || (await connectionCount(running)) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

function connectionCount(running: RunningServer): Promise<number> {
  return new Promise((resolve, reject) => running.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/** Timers alive in this process (a stream's keep-alive interval is one). */
function timeoutCount(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}
