import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchChromium, setScrub } from '../test/helpers/dashboard-browser.js';
import { envWithout } from './node-reference.js';
import { formatNumber, type BenchResult } from './report.js';
import { median, withTempDir } from './support.js';
import { BATON_BIN } from './short-command.js';
import { appendLines } from './work-units-status.js';

/**
 * Issue 22's budgets for `baton serve`, measured in Debian's headless Chromium: the first meaningful
 * render of the initiative view (the wave board of a 1,000-WU initiative on screen) on a log of
 * 100,000 events ≤ 500 ms after the server is up (it printed its URL); and scrubbing to a position
 * (the slider moved, the page showing that position's cards) ≤ 300 ms, once the background
 * checkpoints are laid. Two rows.
 *
 * The machine's limit beside each: for the render, Chromium loading a page that computes nothing
 * from the same server (its icon); for the scrub, the page's own round trip to the server for a
 * request that folds nothing (`/api/status`).
 */
export const SERVE_RENDER = {
  name: 'serve-first-render',
  work: '`baton serve`: first meaningful render of the initiative view, 1,000 WUs, 100,000 events',
  maxMs: 500,
};
export const SERVE_SCRUB = {
  name: 'serve-scrub',
  work: "`baton serve`: scrub to a position (slider moved → that position's cards shown), 100,000 events",
  maxMs: 300,
};
const NOW = '2026-04-17T12:00:00.000Z';
const RENDER_ROUNDS = 3;
const SCRUBS = 12;

export function serveBenchSkipReason(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set BATON_CHROMIUM)`;
}

function env(): NodeJS.ProcessEnv {
  return { ...envWithout(), BATON_NOW: NOW };
}

interface Server {
  child: ChildProcess;
  url: string;
  base: string;
  token: string;
  startMs: number;
}

async function startServer(dir: string): Promise<Server> {
  const started = performance.now();
  const child = spawn(process.execPath, [BATON_BIN, '--dir', dir, '--json', 'serve', '--port', '0'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0]!) as { url: string }).url);
    });
    child.on('exit', (code) => reject(new Error(`baton serve exited ${code}: ${out}`)));
  });
  const parsed = new URL(url);
  return { child, url, base: `${parsed.protocol}//${parsed.host}`, token: parsed.searchParams.get('token')!, startMs: performance.now() - started };
}

function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
  });
}

async function waitForCheckpoints(page: Page): Promise<number> {
  for (;;) {
    const status = (await page.evaluate(async () => (await fetch('/api/status')).json())) as { checkpoints: number; checkpoints_done: boolean };
    if (status.checkpoints_done) return status.checkpoints;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function benchServeDashboard(options: { events: number }): Promise<BenchResult[]> {
  const wus = 1000;
  return withTempDir('serve', async (dir) => {
    const run = (args: string[]): void => {
      const r = spawnSync(process.execPath, [BATON_BIN, '--dir', dir, '--json', ...args], { env: env(), stdio: 'ignore' });
      if (r.status !== 0) throw new Error(`baton ${args.join(' ')} exited ${r.status}`);
    };
    run(['init']);
    run(['initiative', 'create', 'INIT-1', '--title', 'Bench']);
    appendLines(dir, 0, options.events, wus);
    const browser: Browser = await launchChromium();
    const renderMs: number[] = [];
    const baselineMs: number[] = [];
    const startMs: number[] = [];
    const scrubMs: number[] = [];
    const roundTripMs: number[] = [];
    let checkpoints = 0;
    let cards = 0;
    try {
      for (let round = 0; round < RENDER_ROUNDS; round++) {
        const server = await startServer(dir);
        startMs.push(server.startMs);
        const context = await browser.newContext({ viewport: { width: 1366, height: 820 } });
        try {
          const page = await context.newPage();
          let start = performance.now();
          // From navigation to the cards on screen (not to the load event, which waits for the icon).
          await page.goto(server.url, { waitUntil: 'commit' });
          await page.waitForSelector('[data-initiative] .wu', { timeout: 30_000 });
          renderMs.push(performance.now() - start);
          cards = await page.$$eval('.wu', (els) => els.length);
          start = performance.now();
          await page.goto(`${server.base}/favicon.svg`);
          baselineMs.push(performance.now() - start);
          if (round === RENDER_ROUNDS - 1) {
            await page.goto(`${server.base}/`);
            await page.waitForSelector('[data-initiative] .wu');
            checkpoints = await waitForCheckpoints(page);
            // Positions spread over the log, in a fixed pseudo-random order (none repeated).
            const positions = Array.from({ length: SCRUBS }, (_, i) => wus + 2 + Math.floor((((i * 5) % SCRUBS) + 0.5) * ((options.events - wus) / SCRUBS)));
            for (const seq of positions) {
              start = performance.now();
              await setScrub(page, seq);
              await page.waitForSelector(`body[data-seq="${seq}"] [data-initiative] .wu`, { timeout: 30_000 });
              scrubMs.push(performance.now() - start);
              roundTripMs.push(
                await page.evaluate(async () => {
                  const t = performance.now();
                  await (await fetch('/api/status')).json();
                  return performance.now() - t;
                }),
              );
            }
          }
        } finally {
          await context.close();
          await stopServer(server);
        }
      }
    } finally {
      await browser.close();
    }
    const render = median(renderMs);
    const baseline = median(baselineMs);
    const scrubWorst = Math.max(...scrubMs);
    const roundTrip = median(roundTripMs);
    return [
      {
        name: SERVE_RENDER.name,
        work: SERVE_RENDER.work,
        baton: {
          value: render,
          unit: 'ms',
          detail: `median of ${RENDER_ROUNDS} fresh servers, ${cards} cards (runs ${renderMs.map((ms) => formatNumber(ms)).join(', ')})`,
        },
        limit: { value: baseline, unit: 'ms', detail: 'median Chromium navigation to a page that computes nothing (/favicon.svg) on the same server' },
        ratio: render / baseline,
        floor: `≤ ${SERVE_RENDER.maxMs} ms`,
        pass: render <= SERVE_RENDER.maxMs,
        notes: [`server start (spawn → URL printed: reads the log, folds the head): ${startMs.map((ms) => formatNumber(ms)).join(', ')} ms`],
      },
      {
        name: SERVE_SCRUB.name,
        work: SERVE_SCRUB.work,
        baton: {
          value: scrubWorst,
          unit: 'ms',
          detail: `worst of ${scrubMs.length} positions (median ${formatNumber(median(scrubMs))}; ${scrubMs.map((ms) => formatNumber(ms)).join(', ')})`,
        },
        limit: { value: roundTrip, unit: 'ms', detail: 'median round trip of the page to the server for a request that folds nothing (/api/status)' },
        ratio: scrubWorst / roundTrip,
        floor: `≤ ${SERVE_SCRUB.maxMs} ms`,
        pass: scrubWorst <= SERVE_SCRUB.maxMs,
        notes: [`${checkpoints} in-memory checkpoints laid in the background after start`],
      },
    ];
  });
}
