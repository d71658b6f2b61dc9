import type { Browser, Page } from 'playwright-core';

/** The dashboard driven in Debian's Chromium, by its browser tests and its benchmark. */
export const CHROMIUM = process.env['BATON_CHROMIUM'] ?? '/usr/bin/chromium';

/**
 * Chromium without its sandbox: as root in CI containers it may not get the user namespaces the
 * sandbox needs. playwright-core loads here, not with this module: the bench runner imports this
 * module with every benchmark, and playwright's many megabytes of code on the heap made every
 * garbage collection of the in-process benchmarks (the work-unit rebuild) slower.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** Moves the dashboard's time slider to `seq`, as a user dragging it would (an `input` event). */
export async function setScrub(page: Page, seq: number): Promise<void> {
  await page.$eval(
    '#scrub',
    (el, v) => {
      (el as unknown as { value: string }).value = String(v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    },
    seq,
  );
}
