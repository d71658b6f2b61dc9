import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batonIn, jsonLines } from '../helpers/cli.js';
import { httpRequest, rawRequest, startServe, type Served } from '../helpers/serve.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

/**
 * `baton serve` is read-only and private by default: loopback only unless --host, a token on every
 * request, nothing but GET/HEAD, and assets from a fixed list that no URL can step out of. Its data
 * endpoints return exactly what `replay --view` prints.
 */
const NOW = (minute: number): Record<string, string> => ({ BATON_NOW: `2026-11-20T10:${String(minute).padStart(2, '0')}:00Z` });

let dir: string;
let served: Served;

/**
 * Another address than 127.0.0.1 to knock on, still inside the loopback range (tests send traffic
 * to loopback only): a server bound to 127.0.0.1 does not answer on 127.0.0.2, one bound to
 * 0.0.0.0 (every address of the machine) does.
 */
function outsideAddress(): string {
  return '127.0.0.2';
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

beforeAll(async () => {
  dir = makeTempDir('baton-serve-sec-');
  await batonIn(dir, ['init'], { env: NOW(0) });
  for (let i = 1; i <= 3; i++)
    await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', JSON.stringify({ text: `note ${i}` })], { env: NOW(i) });
  await batonIn(dir, ['session', 'start', '--agent-identity', 'codex:sec', '--client', 'codex'], { env: NOW(5) });
  await batonIn(dir, ['log', 'append', '--type', 'note.recorded', '--stream', 'note/ops', '--data', '{"text":"last"}'], { env: NOW(9) });
  served = await startServe(dir, [], { env: NOW(30) });
});

afterAll(async () => {
  await served?.stop();
  removeTempDirs();
});

describe('binding', () => {
  it('listens on 127.0.0.1 only by default, and says nothing about exposure', async () => {
    expect(served.serving.host).toBe('127.0.0.1');
    expect(served.serving.exposed).toBe(false);
    expect(served.serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{40,}$/);
    expect(await canConnect('127.0.0.1', served.serving.port)).toBe(true);
    expect(await canConnect(outsideAddress(), served.serving.port)).toBe(false);
    expect(served.stderr()).not.toMatch(/EXPOSED/);
  });

  it('--host 0.0.0.0 is reachable from outside, warns loudly on stderr, and still wants the token', async () => {
    const exposed = await startServe(dir, ['--host', '0.0.0.0'], { env: NOW(30) });
    try {
      expect(exposed.serving.exposed).toBe(true);
      expect(exposed.stderr()).toMatch(/EXPOSED: the dashboard listens on 0\.0\.0\.0/);
      const outside = `http://${outsideAddress()}:${exposed.serving.port}`;
      expect((await httpRequest(outside, '/')).status).toBe(401);
      expect((await httpRequest(outside, '/', { headers: { authorization: `Bearer ${exposed.token}` } })).status).toBe(200);
    } finally {
      await exposed.stop();
    }
  });
});

describe('the access token', () => {
  it('answers 401 to every path without it or with a wrong one', async () => {
    for (const path of ['/', '/app.js', '/api/dashboard', '/api/view/log_stats?to=1', '/api/events', '/api/log', '/api/verify', '/nope']) {
      const answer = await httpRequest(served.base, path);
      expect(answer.status, path).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ v: 1, type: 'error', code: 'UNAUTHORIZED' });
      expect((await httpRequest(served.base, `${path}${path.includes('?') ? '&' : '?'}token=wrong${served.token}`)).status, path).toBe(401);
    }
  });

  it('accepts it in the query (and sets a cookie for the page), in a cookie, or as a bearer header', async () => {
    const first = await httpRequest(served.base, `/?token=${served.token}`);
    expect(first.status).toBe(200);
    expect(first.body).toContain('<title>Baton dashboard</title>');
    const cookie = String(first.headers['set-cookie']).split(';')[0]!;
    expect(cookie).toBe(`baton_token_${served.serving.port}=${served.token}`);
    expect(String(first.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    expect((await httpRequest(served.base, '/api/dashboard', { headers: { cookie } })).status).toBe(200);
    expect((await httpRequest(served.base, '/app.css', { headers: { authorization: `Bearer ${served.token}` } })).status).toBe(200);
  });
});

describe('read-only', () => {
  it('answers 405 to every method but GET and HEAD, on every path, and the log is unchanged', async () => {
    const before = jsonLines((await batonIn(dir, ['log', 'stats'])).stdout)[0] as { head_hash: string };
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      for (const path of ['/', '/api/dashboard', '/api/log', '/api/view/log_stats', '/api/append', '/api/events']) {
        const answer = await httpRequest(served.base, path, {
          method,
          headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
          body: '{"type":"note.recorded"}',
        });
        expect(answer.status, `${method} ${path}`).toBe(405);
        expect(answer.headers['allow']).toBe('GET, HEAD');
      }
    }
    const after = jsonLines((await batonIn(dir, ['log', 'stats'])).stdout)[0] as { head_hash: string };
    expect(after.head_hash).toBe(before.head_hash);
  });
});

describe('assets', () => {
  it('serves only the fixed list: traversal, encoded traversal and absolute paths find nothing', async () => {
    const targets = [
      '/../../../../etc/passwd',
      '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
      '/app.js/../../../package.json',
      '/..%2f..%2fpackage.json',
      '/..%5c..%5cpackage.json',
      '//etc/passwd',
      '/etc/passwd',
      '/dist/serve-assets/app.js',
      '/serve-assets/index.html',
      '/index.html',
      '/app.js%00.png',
      'http://127.0.0.1/../../etc/passwd',
      '/%252e%252e/package.json',
    ];
    for (const target of targets) {
      const answer = await rawRequest(served.base, target, served.token);
      expect([400, 404], target).toContain(answer.status);
      expect(answer.text, target).not.toMatch(/root:x:0:0|"name": "baton"/);
    }
    for (const path of ['/', '/app.js', '/app.css', '/favicon.svg']) expect((await rawRequest(served.base, path, served.token)).status, path).toBe(200);
  });
});

describe('data endpoints', () => {
  const api = async (path: string): Promise<unknown> => {
    const answer = await httpRequest(served.base, path, { headers: { authorization: `Bearer ${served.token}` } });
    expect(answer.status, path).toBe(200);
    return JSON.parse(answer.body);
  };

  it('a view at a position is exactly the envelope replay --view prints for it', async () => {
    for (const [view, to, extra] of [
      ['log_stats', 2, []],
      ['log_stats', 5, []],
      ['roster', 5, ['--include-stale']],
      ['sessions', 5, []],
      ['last_stopping_point', 6, []],
    ] as const) {
      const replayed = jsonLines((await batonIn(dir, ['replay', '--view', view, '--to', String(to), ...extra], { env: NOW(30) })).stdout)[0];
      const query = extra.length > 0 ? '&include_stale=true' : '';
      expect(await api(`/api/view/${view}?to=${to}${query}`), `${view} --to ${to}`).toEqual(replayed);
    }
    const at = '2026-11-20T10:02:30Z';
    const byTime = jsonLines((await batonIn(dir, ['replay', '--view', 'log_stats', '--at', at], { env: NOW(30) })).stdout)[0];
    expect(await api(`/api/view/log_stats?at=${at}`)).toEqual(byTime);
  });

  it('the dashboard at a position carries the position and the views, the log page the events before it', async () => {
    const dashboard = (await api('/api/dashboard?to=3')) as { position: { seq: number; live: boolean; at: string }; log_stats: { events: number } };
    expect(dashboard.position).toMatchObject({ seq: 3, live: false, at: '2026-11-20T10:03:00.000Z' });
    expect(dashboard.log_stats.events).toBe(3);
    const page = (await api('/api/log?to=3&limit=2')) as { events: { seq: number }[]; head: { seq: number } };
    expect(page.events.map((e) => e.seq)).toEqual([3, 2]);
    expect(page.head.seq).toBe(3);
    const bad = await httpRequest(served.base, '/api/dashboard?to=abc', { headers: { authorization: `Bearer ${served.token}` } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('to:') });
  });
});
