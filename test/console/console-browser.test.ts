// The console end to end in headless Chromium on a real `svc serve` (SQLite) and a test site: an owner's whole
// round, a subscriber's view, the refusals (CSRF missing or stale, a foreign Origin, a deleted user's session),
// and the live bar recovering after the server restarts. Screenshots of each page, wide and narrow, only when asked
// (CONSOLE_SCREENSHOTS=1: see test/support/console-flow.ts). Skipped only where Chromium is missing and this is not CI.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM } from '../support/chromium.js';
import { runHere } from '../support/cli.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  csrfOf,
  expectNoMidWordBreaks,
  launchBrowser,
  ownerFlow,
  PASSWORDS,
  projectUrl,
  shoot,
  signIn,
  signOut,
  startConsoleService,
  subscriberView,
  TOKEN,
  type ConsoleService,
} from '../support/console-flow.js';

const available = existsSync(CHROMIUM);
if (!available && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install chromium-headless-shell)`);

describe.skipIf(!available)('the console in headless Chromium (SQLite)', () => {
  let svc: ConsoleService;
  let browser: BrowserContext;

  beforeAll(async () => {
    svc = await startConsoleService();
    browser = await launchBrowser(svc.dir);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(join(svc?.dir ?? '/nonexistent', 'profile'), { recursive: true, force: true });
    await svc?.close();
  });

  it('an owner signs in, crawls, reads the report, searches, makes and revokes a key, and signs out', async () => {
    await ownerFlow(browser, svc, true);
  }, 180_000);

  it('the overview shows the index figures; an owner checks, saves and clears a schedule; a bad cron keeps the input', async () => {
    const page = await browser.newPage();
    try {
      await signIn(page, svc.base, 'admin', PASSWORDS.admin);
      await page.goto(projectUrl(svc.base));
      // After the owner's crawl: the pages stored and in search, and the file's size.
      expect(Number((await page.textContent('#figure-pages'))!.replace(/,/g, ''))).toBeGreaterThanOrEqual(13);
      expect(Number((await page.textContent('#figure-in-search'))!.replace(/,/g, ''))).toBeGreaterThanOrEqual(13);
      expect(await page.textContent('#figure-size')).toMatch(/^\d+(\.\d)? (KiB|MiB)$/);
      expect(await page.textContent('#index-figures + p')).toContain('the database file and its WAL');
      expect(await page.textContent('#schedule-note')).toContain('From the config file.');
      await Promise.all([page.waitForURL(/\/schedule$/), page.click('#change-schedule')]);
      expect(await page.textContent('#schedule-source')).toContain('From the config file');

      // A bad expression: 400, the form says which field and why, and keeps both inputs; nothing is stored.
      await page.fill('#cron-full', '0 25 * * *');
      await page.fill('#cron-partial', '*/15 * * * *');
      const bad = await Promise.all([page.waitForNavigation(), page.click('#save-schedule')]);
      expect(bad[0]!.status()).toBe(400);
      expect(await page.textContent('#error')).toContain('Not saved: Full crawl (full) is not a cron expression');
      expect(await page.textContent('#cron-full-error')).toMatch(
        /^Full crawl \(full\): must be a cron expression of 5 fields/,
      );
      expect(await page.getAttribute('#cron-full', 'aria-invalid')).toBe('true');
      expect(await page.inputValue('#cron-full')).toBe('0 25 * * *');
      expect(await page.inputValue('#cron-partial')).toBe('*/15 * * * *');
      expect(await page.locator('#cron-partial-runs li').count()).toBe(3);
      expect(await page.textContent('#schedule-source')).toContain('From the config file');
      await shoot(page, 'schedule-invalid', true);

      // Check shows the next three runs of what was typed and stores nothing; Save stores it.
      await page.fill('#cron-full', '30 2 * * *');
      await Promise.all([page.waitForNavigation(), page.click('#check-schedule')]);
      expect(await page.textContent('#notice')).toContain('nothing is saved yet');
      expect(await page.locator('#cron-full-runs li time').count()).toBe(3);
      const runs = await page
        .locator('#cron-full-runs time')
        .evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')));
      expect(runs.map((r) => Date.parse(r!))).toEqual([...runs.map((r) => Date.parse(r!))].sort((a, b) => a - b));
      expect(await page.textContent('#schedule-source')).toContain('From the config file');
      await Promise.all([page.waitForURL(/notice=schedule-saved/), page.click('#save-schedule')]);
      expect(await page.textContent('#schedule-source')).toContain('Set here');
      expect(await page.textContent('#schedule')).toContain('30 2 * * *');
      expect(await page.textContent('#schedule')).toContain('*/15 * * * *');
      await expectNoMidWordBreaks(page, '#schedule');
      await shoot(page, 'schedule', true);
      // The CLI and /v1 see the same stored schedule.
      const shown = await runHere(['schedule', '--json', '--config', svc.config]);
      expect(JSON.parse(shown.stdout)).toMatchObject({ source: 'stored', full: { cron: '30 2 * * *' } });
      await page.goto(projectUrl(svc.base));
      expect(await page.textContent('#schedule-note')).toContain('Set in the console');

      // Clear: the config's schedule (none here) is in force again.
      await page.goto(projectUrl(svc.base, 'schedule'));
      await Promise.all([page.waitForURL(/notice=schedule-cleared/), page.click('#clear-schedule')]);
      expect(await page.textContent('#schedule-source')).toContain('From the config file');
      expect(await page.textContent('#schedule')).not.toContain('30 2 * * *');
      expect(await page.locator('#clear-schedule').count()).toBe(0);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('search narrows by folder, language and address prefix, keeps its filters across pages, and names a bad prefix', async () => {
    const page = await browser.newPage();
    try {
      await signIn(page, svc.base, 'admin', PASSWORDS.admin);
      await page.goto(`${projectUrl(svc.base, 'search')}?q=orchard`);
      expect(await page.textContent('#hit-count')).toMatch(/^13 pages match/);
      // The folders of the matches with their counts: /row/ holds eleven.
      expect(await page.textContent('#facet-path')).toMatch(/\/row\/\s*11/);
      expect(await page.textContent('#facet-lang')).toContain('en');
      await Promise.all([page.waitForURL(/path=%2Frow%2F/), page.click('#facet-path >> text=/row/')]);
      expect(await page.textContent('#active-filters')).toContain('Under /row/');
      expect(await page.inputValue('#path')).toBe('/row/');
      expect(await page.textContent('#hit-count')).toMatch(/^11 pages match .*1–10 shown/);
      for (const url of await page.locator('#hits .url').allTextContents()) expect(url).toContain('/row/');
      // The next page keeps the filter.
      await Promise.all([page.waitForURL(/page=2/), page.click('#next-page')]);
      expect(page.url()).toContain('path=%2Frow%2F');
      expect(await page.locator('#hits li').count()).toBe(1);
      await page.goto(`${projectUrl(svc.base, 'search')}?q=orchard&path=%2Frow%2F`);
      await Promise.all([page.waitForURL(/lang=en/), page.click('#facet-lang a')]);
      expect(await page.textContent('#active-filters')).toMatch(/Language en.*Under \/row\//);
      expect(await page.getAttribute('#facet-lang a', 'aria-current')).toBe('true');
      await shoot(page, 'search-filtered', true);
      // Removing the folder filter keeps the language one.
      await Promise.all([
        page.waitForURL((u) => !u.search.includes('path=')),
        page.click('[aria-label="Remove the filter Under /row/"]'),
      ]);
      expect(page.url()).toContain('lang=en');
      expect(await page.textContent('#hit-count')).toMatch(/^13 pages match/);
      // A prefix that is not a path: 400 naming the field and the rule, the input kept.
      await page.fill('#path', 'row');
      const bad = await Promise.all([page.waitForNavigation(), page.click('#search')]);
      expect(bad[0]!.status()).toBe(400);
      expect(await page.textContent('#error')).toMatch(/path_prefix: must be a path starting with \//);
      expect(await page.inputValue('#path')).toBe('row');
    } finally {
      await page.close();
    }
  }, 60_000);

  // Retried once, after 25 s (they take ~4 s): this test or the next has hung past its timeout a few times, right after
  // the owner's round (cause not found yet). Both are read-only or change nothing.
  it("fits the report's frame to the report even when the report loaded before the console's script ran", async () => {
    const page = await browser.newPage();
    try {
      await signIn(page, svc.base, 'admin', PASSWORDS.admin);
      await page.goto(projectUrl(svc.base));
      // The script comes a second late, so the frame's load event is past when it runs (as under load, at random).
      await page.route('**/assets/console.js', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await route.continue();
      });
      await page.click('nav.pages >> text=Link report');
      await page.frameLocator('#report-frame').locator('h1').waitFor();
      await page.waitForSelector('#report-frame[data-fitted="true"]', { timeout: 10_000 });
      const heights = (await page.evaluate(
        "(() => { const f = document.getElementById('report-frame'); return [f.clientHeight, f.contentDocument.documentElement.scrollHeight]; })()",
      )) as [number, number];
      expect(heights[0]).toBeGreaterThanOrEqual(Math.max(heights[1], 300) - 1);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('a subscriber sees Search only', { retry: 1, timeout: 25_000 }, async () => {
    await subscriberView(browser, svc, true);
  });

  // After the owner's and the subscriber's searches: the console's searches are recorded as every other surface's.
  it('Search analytics: the searches per day, the top queries and those with no results; since refused in the future', {
    retry: 1,
    timeout: 25_000,
  }, async () => {
    const page = await browser.newPage();
    try {
      await signIn(page, svc.base, 'admin', PASSWORDS.admin);
      await page.click('nav.pages >> text=Search analytics');
      expect(new URL(page.url()).pathname).toBe(`/console/p/${encodeURIComponent(TOKEN)}/search-stats`);
      // Every console search of it counted (the owner's round, its paging and its filters; exact counts are
      // test/http/search-stats.test.ts's), 13 pages found by the last.
      const [terms, searches, lastHits] = await page.$$eval('#stats-top tbody tr:first-child > *', (cells) =>
        cells.map((c) => c.textContent?.trim() ?? ''),
      );
      expect([terms, lastHits]).toEqual(['orchard', '13']);
      expect(Number(searches)).toBeGreaterThanOrEqual(2);
      expect(await page.textContent('#stats-top')).toContain('pruning');
      // The owner's script-laden query found nothing: listed as text, never run.
      expect(await page.textContent('#stats-no-results')).toContain('img src');
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      // All searched today: one day is a sentence, not a chart.
      expect(await page.textContent('#stats-days-one')).toContain('one day only');
      expect(await page.locator('#stats-days tbody tr').count()).toBe(1);
      expect(await page.textContent('#stats-about')).toContain('Never who searched');

      // A search recorded yesterday (written as the recorder writes it): two days make a chart with its table.
      const db = new Database(join(svc.dir, 'data', 'svc.db'));
      try {
        const yesterday = new Date(Date.now() - 86_400_000).toISOString();
        db.prepare('INSERT INTO search_queries (project, terms, hits, searched_at) VALUES (?, ?, 0, ?)').run(
          TOKEN,
          'quince jelly',
          yesterday,
        );
      } finally {
        db.close();
      }
      await page.reload();
      expect(await page.locator('svg#stats-chart title').first().textContent()).toBe('Searches per day');
      expect(await page.locator('#stats-days tbody tr').count()).toBe(2);
      expect(await page.textContent('#stats-no-results')).toContain('quince jelly');
      await shoot(page, 'search-stats', true);

      // A period with no search: a sentence. A day in the future: refused, naming since.
      await page.goto(`${projectUrl(svc.base, 'search-stats')}?since=${encodeURIComponent(new Date().toISOString())}`);
      expect(await page.textContent('#stats-days-none')).toContain('No search was recorded in this period');
      await page.fill('#stats-since', '2999-01-01');
      const [refused] = await Promise.all([page.waitForNavigation(), page.click('#stats-show')]);
      expect(refused!.status()).toBe(400);
      expect(await page.textContent('#error')).toMatch(/^since: must not be in the future/);
      await signOut(page);

      // A subscriber may search, not read what others searched for.
      await signIn(page, svc.base, 'reader', PASSWORDS.reader);
      expect((await page.goto(projectUrl(svc.base, 'search-stats')))!.status()).toBe(403);
      await signOut(page);
    } finally {
      await page.close();
    }
  });

  it('refuses a form without its CSRF token, with a stale one, or from another origin, and changes nothing', {
    retry: 1,
    timeout: 25_000,
  }, async () => {
    const page = await browser.newPage();
    try {
      await signIn(page, svc.base, 'admin', PASSWORDS.admin);
      await page.goto(projectUrl(svc.base, 'keys'));
      const staleCsrf = await csrfOf(page);
      const keysBefore = await page.locator('#keys tbody tr').count();
      const cookie = async () =>
        (await browser.cookies(`${svc.base}/console/`)).map((c) => `${c.name}=${c.value}`).join('; ');
      const post = async (body: Record<string, string>, origin?: string) => {
        const r = await fetch(projectUrl(svc.base, 'keys'), {
          method: 'POST',
          headers: {
            cookie: await cookie(),
            'content-type': 'application/x-www-form-urlencoded',
            ...(origin ? { origin } : {}),
          },
          body: new URLSearchParams(body),
          redirect: 'manual',
        });
        return { status: r.status, text: await r.text() };
      };
      const missing = await post({ name: 'no token' }, svc.base);
      expect(missing.status).toBe(403);
      expect(missing.text).toContain('nothing was changed');

      // From a page of another site: the server's Host/Origin guard refuses it before the console sees it.
      const evil = await post({ name: 'evil', csrf: staleCsrf }, 'http://evil.example');
      expect(evil.status).toBe(403);
      expect(evil.text).toContain('Origin header not allowed');
      // From another loopback port (same site to a browser, another origin): the console refuses it.
      const otherPort = await post({ name: 'other port', csrf: staleCsrf }, 'http://127.0.0.1:1');
      expect(otherPort.status).toBe(403);
      expect(otherPort.text).toContain('sent from another site');

      // A token of a session that ended is stale in the next one.
      await signOut(page);
      await signIn(page, svc.base, 'admin', PASSWORDS.admin);
      const stale = await post({ name: 'stale', csrf: staleCsrf }, svc.base);
      expect(stale.status).toBe(403);
      expect(stale.text).toContain('out of date');

      await page.goto(projectUrl(svc.base, 'keys'));
      expect(await page.locator('#keys tbody tr').count()).toBe(keysBefore);
      expect(await page.content()).not.toMatch(/no token|evil|other port|stale/);
      await signOut(page);
    } finally {
      await page.close();
    }
  });

  it('ends the session of a user who was deleted', async () => {
    const page = await browser.newPage();
    try {
      await signIn(page, svc.base, 'temp', PASSWORDS.temp);
      const db = new Database(join(svc.dir, 'data', 'svc.db'));
      try {
        db.pragma('foreign_keys = ON');
        db.prepare('DELETE FROM users WHERE login = ?').run('temp');
      } finally {
        db.close();
      }
      const r = await page.goto(projectUrl(svc.base, 'crawls'));
      expect(r!.status()).toBe(401);
      expect(await page.textContent('#error')).toContain('your user was removed');
      expect((await browser.cookies(`${svc.base}/console/`)).some((c) => c.name === 'svc_console' && c.value)).toBe(
        false,
      );
    } finally {
      await page.close();
    }
  }, 60_000);

  it('keeps the live bar going while the server restarts, and the session with it', async () => {
    const page = await browser.newPage();
    try {
      await signIn(page, svc.base, 'admin', PASSWORDS.admin);
      svc.slowMs.value = 60_000;
      await page.goto(projectUrl(svc.base, 'crawls'));
      await page.check('#mode-full');
      await Promise.all([page.waitForURL(/crawl=\d+/), page.click('#start')]);
      // Locators, not page.waitForFunction: a predicate given as a string is eval'd in the page, which the console's
      // CSP refuses (script-src 'self') whenever the first look does not already find it.
      await page.locator('#crawl-text', { hasText: /running/ }).waitFor();
      await svc.stopServer();
      await page.locator('#crawl-note', { hasText: /trying again/ }).waitFor();
      await shoot(page, 'crawls-reconnecting', true);
      svc.slowMs.value = 10;
      await svc.startServer();
      // The crawl the stopped server ran has ended (a crawl's owner ends it on shutdown); the bar says so.
      await page.waitForSelector('#crawl-live[data-done="true"]', { timeout: 60_000 });
      expect(await page.textContent('#crawl-text')).toMatch(/stopped|failed/);
      expect(await page.textContent('#crawl-note')).toBe('');
      // Still signed in after the restart: the session is in the database.
      await page.reload();
      expect(await page.textContent('#who')).toContain('admin');
    } finally {
      await page.close();
    }
  }, 120_000);
});
