import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batonIn, jsonLines } from '../helpers/cli.js';
import { CHROMIUM, launchChromium, setScrub } from '../helpers/dashboard-browser.js';
import { at, buildDashboardScenario, type Scenario } from '../helpers/dashboard-scenario.js';
import { startServe, type Served } from '../helpers/serve.js';
import { makeTempDir, removeTempDirs } from '../helpers/workspace.js';

/**
 * The dashboard in a real headless Chromium (Debian's `chromium`, which .ci/run installs when
 * missing), on a workspace built by the demo and the CLI: every view renders (screenshots are
 * written to test-artifacts/dashboard/), a claim and a signal made through the CLI appear without
 * a reload within a second, the scrubber shows exactly what `replay --to N` / `--at T` prints, and
 * a browser without the token gets 401.
 */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));

let scenario: Scenario;
let served: Served;
let browser: Browser;
let page: Page;

interface StatusEnvelope {
  type: string;
  initiative: string;
  wus: { wu_id: string; orchestration_state: string }[];
}

async function replayJson(args: string[]): Promise<unknown> {
  const r = await batonIn(scenario.dir, ['--json', 'replay', ...args], { env: { BATON_NOW: scenario.now } });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return jsonLines(r.stdout)[0];
}

/** The WU cards the page shows, per initiative with any: WU id → state. */
function boardOnPage(): Promise<Record<string, Record<string, string>>> {
  return page.$$eval('[data-initiative]', (sections) =>
    Object.fromEntries(
      sections
        .map(
          (s) =>
            [
              s.getAttribute('data-initiative')!,
              Object.fromEntries([...s.querySelectorAll('.wu')].map((card) => [card.getAttribute('data-wu')!, card.getAttribute('data-state')!])),
            ] as const,
        )
        .filter(([, cards]) => Object.keys(cards).length > 0),
    ),
  );
}

/** What `replay --view initiative_status` prints for each initiative, in the page's shape. */
async function boardReplayed(position: string[], initiatives: readonly string[]): Promise<Record<string, Record<string, string>>> {
  const board: Record<string, Record<string, string>> = {};
  for (const id of initiatives) {
    const view = (await replayJson(['--view', 'initiative_status', ...position, id])) as StatusEnvelope;
    if (view.type === 'initiative_status' && view.wus.length > 0) board[id] = Object.fromEntries(view.wus.map((w) => [w.wu_id, w.orchestration_state]));
  }
  return board;
}

async function scrubTo(value: number): Promise<void> {
  await setScrub(page, value);
}

async function show(view: string): Promise<void> {
  await page.click(`[data-view=${view}]`);
  await page.waitForSelector(`main[data-view=${view}]`);
}

async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}${name}.png` });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does), or set BATON_CHROMIUM`);
  mkdirSync(ARTIFACTS, { recursive: true });
  scenario = await buildDashboardScenario(makeTempDir('baton-dashboard-'));
  served = await startServe(scenario.dir, [], { env: { BATON_NOW: scenario.now } });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1366, height: 820 } });
  await page.goto(served.serving.url);
  await page.waitForSelector('[data-initiative="INIT-9"] .wu');
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  removeTempDirs();
});

describe('the dashboard in Chromium', () => {
  it('shows every view of the demo workspace (screenshots in test-artifacts/dashboard/)', async () => {
    expect(await page.getAttribute('body', 'data-live')).toBe('true');
    expect(await boardOnPage()).toEqual(await boardReplayed(['--to', String(served.serving.head_seq)], ['INIT-7', 'INIT-9']));
    expect(await page.$$eval('[data-initiative="INIT-9"] .column', (cols) => cols.map((c) => c.getAttribute('data-wave')))).toEqual(['0', '1', '2']);
    await shoot('initiatives');
    await page.click('[data-wu="WU-11"]');
    await page.waitForSelector('#drawer-content .evidence li');
    expect(await page.textContent('#drawer-content')).toContain('wu.claimed');
    await shoot('wu-explain');
    await page.click('#drawer-close');

    await show('agents');
    expect(await page.$$eval('[data-session]', (rows) => rows.length)).toBeGreaterThanOrEqual(3);
    expect(await page.textContent('main')).toContain('codex:search-core');
    await shoot('agents');
    await show('signals');
    expect(await page.textContent('main')).toContain('Index schema: one document per page, or per section?');
    await shoot('signals');
    await show('flows');
    expect(await page.textContent('main')).toContain('Add search ranking');
    expect(await page.$$eval('.gate', (gates) => gates.map((g) => g.querySelector('.gate-status')!.textContent))).toEqual([
      'passed',
      'in_progress',
      'pending',
      'pending',
      'pending',
    ]);
    await shoot('flows');
    await show('log');
    await page.waitForSelector('table.log tr[data-seq]');
    expect(await page.textContent('.log-head')).toContain(`seq ${served.serving.head_seq}`);
    await page.click('#verify-btn');
    await page.waitForSelector('.verify .badge.ok');
    await shoot('log');
    await show('initiatives');
  });

  it('a claim and a signal made through the CLI appear without a reload within a second', async () => {
    await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
    expect(await page.getAttribute('[data-wu="WU-13"]', 'data-state')).toBe('handoff_emitted');
    const claim = await batonIn(scenario.dir, ['--session', scenario.sessions.docs, 'wu', 'claim', 'WU-13'], { env: { BATON_NOW: at(18) } });
    expect(claim.code, claim.stdout).toBe(0);
    await page.waitForSelector('[data-wu="WU-13"]:not([data-state="handoff_emitted"])', { timeout: 1000 });
    const head = Number(await page.getAttribute('body', 'data-seq'));
    const replayed = (await replayJson(['--view', 'initiative_status', '--to', String(head), 'INIT-9'])) as StatusEnvelope;
    expect(await page.getAttribute('[data-wu="WU-13"]', 'data-state')).toBe(replayed.wus.find((w) => w.wu_id === 'WU-13')!.orchestration_state);

    await show('signals');
    const signal = await batonIn(
      scenario.dir,
      ['--session', scenario.sessions.ui, 'mem', 'signal', 'Per section: the guide links to anchors', '--to', 'codex:search-core', '--intent', 'INFO'],
      {
        env: { BATON_NOW: at(19) },
      },
    );
    expect(signal.code, signal.stdout).toBe(0);
    await page.waitForSelector('.message:text("Per section: the guide links to anchors")', { timeout: 1000 });
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await show('initiatives');
  });

  it('the scrubber at seq N and at time T shows what replay --to N and --at T print', async () => {
    const events = jsonLines((await batonIn(scenario.dir, ['log', 'show'])).stdout) as { seq: number; type: string; at: string }[];
    const created = events.find((e) => e.type === 'initiative.created' && e.at.startsWith('2026-11-20'))!.seq;
    const head = events.at(-1)!.seq;
    await show('initiatives');
    const positions = [1, Math.floor(created / 2), created - 1, created + 3, created + 8, head - 4, head - 1];
    for (const n of positions) {
      await scrubTo(n);
      await page.waitForSelector(`body[data-seq="${n}"][data-live="false"]`);
      expect(await boardOnPage(), `seq ${n}`).toEqual(await boardReplayed(['--to', String(n)], ['INIT-7', 'INIT-9']));
    }
    await scrubTo(created + 8);
    await page.waitForSelector(`body[data-seq="${created + 8}"]`);
    await shoot('initiatives-past');

    // The roster and the signals at a past position, too.
    const n = head - 1;
    await scrubTo(n);
    await show('agents');
    await page.waitForSelector(`body[data-seq="${n}"]`);
    const roster = (await replayJson(['--view', 'roster', '--include-stale', '--to', String(n)])) as { sessions: { session_id: string; status: string }[] };
    const rows = await page.$$eval('tr[data-session]', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-session')!, tr.querySelector('.badge')!.textContent!] as const),
    );
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(roster.sessions.map((s) => [s.session_id, s.status])));
    await show('signals');
    const inbox = (await replayJson(['--view', 'inbox', '--to', String(n)])) as { signals: { signal_id: string }[] };
    expect(await page.$$eval('[data-signal]', (els) => els.map((e) => e.getAttribute('data-signal')))).toEqual(
      expect.arrayContaining(inbox.signals.map((s) => s.signal_id)),
    );
    expect(await page.$$eval('[data-signal]', (els) => els.length)).toBe(inbox.signals.length);
    await show('initiatives');

    // By time: the scrubber's time axis lands where replay --at does.
    await page.click('[data-axis=time]');
    for (const minute of [4, 10, 14]) {
      const time = at(minute);
      const expected = events.filter((e) => Date.parse(e.at) <= Date.parse(time)).at(-1)!.seq;
      await scrubTo(Date.parse(time));
      await page.waitForSelector(`body[data-seq="${expected}"]`);
      expect(await boardOnPage(), time).toEqual(await boardReplayed(['--at', time], ['INIT-7', 'INIT-9']));
    }
    await page.click('[data-axis=seq]');
    await page.click('#live');
    await page.waitForSelector('body[data-live="true"]');
  });

  it('a browser without the token gets 401 and no dashboard', async () => {
    const stranger = await browser.newContext();
    try {
      const other = await stranger.newPage();
      const response = await other.goto(`${served.base}/`);
      expect(response!.status()).toBe(401);
      expect(await other.textContent('body')).toContain('UNAUTHORIZED');
      expect((await other.goto(`${served.base}/api/dashboard`))!.status()).toBe(401);
    } finally {
      await stranger.close();
    }
  });
});
