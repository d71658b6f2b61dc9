import { chromium, type Browser, type Page } from 'playwright-core';

/** The dashboard driven in Debian's Chromium, by its browser tests and its benchmark. */
export const CHROMIUM = process.env['BATON_CHROMIUM'] ?? '/usr/bin/chromium';

/** Chromium without its sandbox: as root in CI containers it may not get the user namespaces the sandbox needs. */
export function launchChromium(): Promise<Browser> {
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
