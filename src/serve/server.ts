import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isBatonError } from '../errors.js';
import type { ReplayViewArgs } from '../app/replay-view.js';
import type { EventStore } from '../store/contract.js';
import type { Asset } from './assets.js';
import { BadRequest } from './bad-request.js';
import { DASHBOARD_TABS, type DashboardTab, type DashboardViews, type PositionQuery } from './dashboard-views.js';
import { hostCheckFor, type HostCheck } from './host-check.js';
import { latestEvents } from './latest-events.js';
import { parseRequestTarget } from './request-target.js';

/**
 * `baton serve`'s HTTP server (node:http): read-only by construction. A request whose Host does not
 * name this server is 421 (host-check.ts); only GET and HEAD are answered (anything else is 405); a
 * request target that cannot be decoded is 400; every request needs the access token (401 without
 * it); assets come from a fixed in-memory list; the data endpoints return the envelopes of the views.
 */
export interface DashboardServerOptions {
  views: DashboardViews;
  store: EventStore;
  assets: ReadonlyMap<string, Asset>;
  workspace: string;
  /** The clock of envelopes that are not views (verify, the log page). */
  clock: () => string;
  /** A fixed token (tests); default: 32 random bytes. */
  token?: string;
}

export interface RunningServer {
  server: Server;
  host: string;
  port: number;
  token: string;
  url: string;
  /** The event streams (`/api/events`) open now. */
  openEventStreams(): number;
  close(): Promise<void>;
}

/** Query parameters a view takes (the flags of `replay`), as the view arguments' names. */
const VIEW_ARGS: Readonly<Record<string, string>> = {
  target: 'target',
  for: 'for',
  thread: 'thread',
  intent: 'intent',
  wu: 'wu',
  task: 'task',
  state: 'state',
  session_id: 'session_id',
  include_stale: 'include_stale',
  all: 'all',
};
const BOOLEAN_ARGS = new Set(['include_stale', 'all']);
const VIEW_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `listenHost`: the name or address the server is told to listen on (`--host`), which a Host header may name. */
export function createDashboardServer(options: DashboardServerOptions, listenHost?: string): { server: Server; token: string; openEventStreams: () => number } {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const tokenMatches = tokenCheck(token);
  const streams = new HeadStreams(options.views);
  // Built at the first request: the address and port are known once the server listens.
  let hostCheck: HostCheck | undefined;

  // Node's own 400 for a missing Host is off: that request gets this server's 421 and JSON error.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.end();
      else if (error instanceof BadRequest) sendJson(res, 400, errorBody(options.clock(), 'INVALID_INPUT', `${error.field}: ${error.message}`));
      else
        sendJson(res, 500, errorBody(options.clock(), isBatonError(error) ? error.code : 'UNEXPECTED', error instanceof Error ? error.message : String(error)));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
    hostCheck ??= hostCheckFor(server.address() as AddressInfo, listenHost);
    if (await refusedUnread(req, res, hostCheck, options.clock)) return;
    const url = parseRequestTarget(req.url ?? '/');
    // A page loading (not its status poll or its event stream): background work waits.
    if (url.pathname !== '/api/status' && url.pathname !== '/api/events') options.views.touch();
    const cookieName = `baton_token_${(server.address() as AddressInfo | null)?.port ?? 0}`;
    const fromQuery = url.searchParams.get('token') ?? undefined;
    const fromHeader = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const fromCookie = cookieValue(req.headers.cookie, cookieName);
    if (!tokenMatches(fromQuery) && !tokenMatches(fromHeader) && !tokenMatches(fromCookie)) {
      return sendJson(res, 401, errorBody(options.clock(), 'UNAUTHORIZED', 'the access token is missing or wrong: open the URL `baton serve` printed'));
    }
    // The token in the printed URL becomes a cookie, so the page's own requests carry it.
    if (tokenMatches(fromQuery)) res.setHeader('Set-Cookie', `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`);
    const asset = options.assets.get(url.pathname);
    if (asset !== undefined) return sendAsset(req, res, asset);
    if (url.pathname === '/api/events') return streams.open(req, res);
    return serveData(options, url, res);
  }

  server.on('close', () => streams.close());
  return { server, token, openEventStreams: () => streams.size };
}

/** Compares a given token with the server's in constant time. */
function tokenCheck(token: string): (given: string | undefined) => boolean {
  const expected = Buffer.from(token);
  return (given) => {
    if (given === undefined) return false;
    const bytes = Buffer.from(given);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  };
}

/**
 * Answers, and returns true for, a request this server serves no further: one whose Host names
 * another server, or a method other than GET and HEAD. Its body is read and dropped first.
 */
async function refusedUnread(req: IncomingMessage, res: ServerResponse, hostCheck: HostCheck, clock: () => string): Promise<boolean> {
  // 421 Misdirected Request, not 403: the request was meant for another server (the name in its
  // Host), for which this one cannot answer; it is not a permission this client lacks here.
  if (!hostCheck(req)) {
    await discardBody(req, 64 * 1024);
    res.setHeader('Connection', 'close');
    sendJson(
      res,
      421,
      errorBody(
        clock(),
        'MISDIRECTED_REQUEST',
        `the Host header ${JSON.stringify(req.headers.host ?? null)} does not name this server: open the URL \`baton serve\` printed`,
      ),
    );
    return true;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    // The body is read and dropped (up to a limit) before answering, so the client hears the 405
    // instead of a reset connection.
    await discardBody(req, 64 * 1024);
    res.setHeader('Allow', 'GET, HEAD');
    res.setHeader('Connection', 'close');
    sendJson(res, 405, errorBody(clock(), 'METHOD_NOT_ALLOWED', 'the dashboard is read-only: only GET and HEAD are served'));
    return true;
  }
  return false;
}

function sendAsset(req: IncomingMessage, res: ServerResponse, asset: Asset): void {
  res.writeHead(200, {
    'Content-Type': asset.contentType,
    'Content-Length': asset.body.length,
    // Nothing but the page's own assets: no CDN, no inline script.
    'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
  });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}

/** The data endpoints: the envelopes of the views, the log page, the status poll and verify. */
async function serveData(options: DashboardServerOptions, url: URL, res: ServerResponse): Promise<void> {
  if (url.pathname === '/api/dashboard') {
    const tab = url.searchParams.get('tab');
    if (tab !== null && !(DASHBOARD_TABS as readonly string[]).includes(tab)) throw new BadRequest(`must be one of ${DASHBOARD_TABS.join(', ')}`, 'tab');
    const position = await options.views.position(positionQuery(url));
    const views = await options.views.dashboard(position, (tab ?? undefined) as DashboardTab | undefined);
    return sendJson(res, 200, { ...views, span: options.views.span(), workspace: options.workspace, store: options.store.kind });
  }
  const viewMatch = /^\/api\/view\/([^/]+)$/.exec(url.pathname);
  if (viewMatch) {
    // parseRequestTarget checked that every segment decodes.
    const name = decodeURIComponent(viewMatch[1]!);
    if (!VIEW_NAME.test(name)) throw new BadRequest('must be a view name like initiative_status', 'view');
    const position = await options.views.position(positionQuery(url));
    return sendJson(res, 200, await options.views.view(name, position, viewArgs(url)));
  }
  if (url.pathname === '/api/log') {
    const position = await options.views.position(positionQuery(url));
    const limit = countParam(url, 'limit') ?? 100;
    const page = await latestEvents(options.store, {
      to: position.seq,
      limit: Math.min(limit, 1000),
      type: url.searchParams.get('type') || undefined,
      stream: url.searchParams.get('stream') || undefined,
    });
    return sendJson(res, 200, { v: 1, type: 'log_page', generated_at: position.as_of, position, ...page });
  }
  if (url.pathname === '/api/status') {
    return sendJson(res, 200, {
      v: 1,
      type: 'dashboard_status',
      generated_at: options.clock(),
      head_seq: options.views.headSeq(),
      ...options.views.progress(),
    });
  }
  if (url.pathname === '/api/verify') {
    const report = await options.store.verify();
    return sendJson(res, 200, { v: 1, type: 'log_verification', generated_at: options.clock(), ...report });
  }
  return sendJson(res, 404, errorBody(options.clock(), 'NOT_FOUND', 'no such page'));
}

/** The open event streams (`/api/events`): each is told the head as appends come. */
class HeadStreams {
  private readonly streams = new Set<ServerResponse>();
  private pending: NodeJS.Timeout | undefined;

  constructor(private readonly views: DashboardViews) {
    // Appends come one by one during a burst: the page is told the head at most every 50 ms.
    views.onAppend(() => {
      this.pending ??= setTimeout(() => {
        this.pending = undefined;
        const data = `event: head\ndata: ${JSON.stringify({ head_seq: views.headSeq() })}\n\n`;
        for (const res of this.streams) res.write(data);
      }, 50);
    });
  }

  get size(): number {
    return this.streams.size;
  }

  open(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    res.write(`event: head\ndata: ${JSON.stringify({ head_seq: this.views.headSeq() })}\n\n`);
    this.streams.add(res);
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    req.on('close', () => {
      clearInterval(keepAlive);
      this.streams.delete(res);
    });
  }

  close(): void {
    if (this.pending) clearTimeout(this.pending);
    for (const res of this.streams) res.end();
  }
}

/** Listen, and resolve with where (port 0: a free one). */
export async function listen(options: DashboardServerOptions, host: string, port: number): Promise<RunningServer> {
  const { server, token, openEventStreams } = createDashboardServer(options, host);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    host: address.address,
    port: address.port,
    token,
    url: `http://${shownHost}:${address.port}/?token=${token}`,
    openEventStreams,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function positionQuery(url: URL): PositionQuery {
  const to = url.searchParams.get('to');
  const at = url.searchParams.get('at');
  if (to !== null && to !== '' && at !== null && at !== '') throw new BadRequest('give one of to or at', 'to');
  if (to !== null && to !== '') {
    const seq = countParam(url, 'to')!;
    return { to: seq };
  }
  if (at !== null && at !== '') {
    if (!ISO.test(at) || Number.isNaN(Date.parse(at))) throw new BadRequest(`must be an ISO-8601 time like 2026-01-31T12:00:00Z, got "${at}"`, 'at');
    return { at: new Date(at).toISOString() };
  }
  return { live: true };
}

function countParam(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value)) throw new BadRequest(`must be a whole number ≥ 0, got "${value}"`, name);
  return Number(value);
}

function viewArgs(url: URL): ReplayViewArgs {
  const args: ReplayViewArgs = {};
  for (const [param, key] of Object.entries(VIEW_ARGS)) {
    const value = url.searchParams.get(param);
    if (value === null) continue;
    args[key] = BOOLEAN_ARGS.has(key) ? value !== 'false' && value !== '0' : value;
  }
  return args;
}

function discardBody(req: IncomingMessage, limit: number): Promise<void> {
  return new Promise((resolve) => {
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) resolve();
    });
    req.on('end', () => resolve());
    req.on('error', () => resolve());
  });
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

function errorBody(now: string, code: string, message: string): Record<string, unknown> {
  return { v: 1, type: 'error', generated_at: now, code, message };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
