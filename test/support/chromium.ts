// Debian's headless Chromium for the browser tests, driven by playwright-core (no browser is ever downloaded):
// where it is, and one way to start it on a fresh profile with nothing of its own going to the network.
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Debian's `chromium-headless-shell`: the same Chromium and Blink as its `chromium` package, built for headless use
 * only (what playwright itself runs headless), at about half the CPU per page load; the browser tests were the largest
 * single cost of the suite. Where only Debian's `chromium` is installed, that one.
 */
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const FULL_CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM = !existsSync(HEADLESS_SHELL) && existsSync(FULL_CHROMIUM) ? FULL_CHROMIUM : HEADLESS_SHELL;

/** A headless Chromium on a fresh profile in `profileDir` (playwright passes it as --user-data-dir). */
export function launchChromium(
  profileDir: string,
  opts: { viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    ...(opts.viewport ? { viewport: opts.viewport } : {}),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // One renderer for every page and software compositing without a GPU process: a fifth less of Chromium's CPU
      // in the console's tests, where Chromium was the largest single cost of the suite. Nothing under test is
      // about process isolation or GPU drawing (test/mcp/app-browser.test.ts, about frames, starts its own).
      '--disable-site-isolation-trials',
      '--renderer-process-limit=1',
      '--disable-gpu-compositing',
      '--disable-software-rasterizer',
    ],
  });
}
