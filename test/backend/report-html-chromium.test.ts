// The HTML report in a real browser (Debian's Chromium, driven by playwright-core; no browser is downloaded): it
// loads from a file:// URL and requests nothing else, renders the counts, sorts by a clicked column, filters by the
// search box and the reason picker, switches to the by-page view, follows the dark scheme, folds into cards when narrow, and runs no script from the report's data. A screenshot is kept in the
// test's temporary folder.
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHtml } from '../../src/backend/report/formats/html.js';
import { CHROMIUM, launchChromium } from '../support/chromium.js';
import { SAMPLE_COUNTS, SAMPLE_PROBLEM_LINKS, sampleReport, SITE } from '../support/reports.js';

/** The one DOM call these checks make in the page (the suite's TypeScript has no DOM types). */
type Styles = { getComputedStyle(e: unknown): { backgroundColor: string; display: string } };

// CI installs chromium (.ci/run), so there the test must run; elsewhere it runs when chromium is there.
const skip = !existsSync(CHROMIUM) && !process.env.CI;

describe.skipIf(skip)('HTML report in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-html-report-'));
  const file = join(dir, 'report.html');
  let context: BrowserContext;
  let page: Page;
  const requests: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    writeFileSync(file, formatHtml(sampleReport(), { toolVersion: '0.1.0' }));
    context = await launchChromium(join(dir, 'profile'), { viewport: { width: 1280, height: 900 } });
    page = context.pages()[0] ?? (await context.newPage());
    context.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(pathToFileURL(file).href);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
  });

  const linkColumn = () =>
    page.$$eval('#links-table tbody tr:not([hidden]) td:first-child', (tds) => tds.map((td) => td.textContent!.trim()));
  const statusColumn = () =>
    page.$$eval('#links-table tbody tr:not([hidden]) td:nth-child(3)', (tds) =>
      tds.map((td) => td.textContent!.trim()),
    );

  it('renders the counts per reason and every problem link, loading nothing but the file', async () => {
    // Each card counts problem links (distinct URLs), its occurrences (page–link pairs) as a label.
    for (const [reason, n] of Object.entries(SAMPLE_PROBLEM_LINKS)) {
      const card = `.counts li[data-reason="${reason}"]`;
      expect(await page.textContent(`${card} .n`)).toBe(String(n));
      const occurrences = SAMPLE_COUNTS[reason as keyof typeof SAMPLE_COUNTS];
      expect(await page.textContent(card)).toContain(`${occurrences} occurrence${occurrences === 1 ? '' : 's'}`);
    }
    expect(await page.textContent('.counts li[data-reason="total"] .n')).toBe('7');
    expect(await page.textContent('.counts li[data-reason="total"]')).toContain('8 occurrences');
    expect(await page.textContent('.counts li[data-reason="blocked"] .n')).toBe('1');
    expect(await page.textContent('#shown')).toBe('7 rows');
    expect(await linkColumn()).toHaveLength(7);
    expect(await page.isVisible('#by-link')).toBe(true);
    expect(await page.isVisible('#by-page')).toBe(false);
    // The hostile anchor text shows as text; its markup made no element and its script never ran.
    expect(await page.textContent('#links-table')).toContain('</script><script>alert(1)</script>');
    expect(await page.$$('#links-table b')).toHaveLength(0);
    // URLs on the report's one target read as paths, the full URL on hover; others stay in full.
    expect(await page.getAttribute('#links-table tbody tr:first-child td:first-child a', 'title')).toBe(`${SITE}/gone`);
    expect(await page.textContent('#links-table')).toContain('https://linkedin.example/in/x');
    // Times read as people read them: relative, the exact time on hover.
    expect(await page.textContent('.meta time')).toMatch(/ ago$/);
    expect(await page.getAttribute('.meta time', 'title')).toBe('2026-11-20 08:00:00 UTC');
    expect(requests.every((u) => u.startsWith('file://'))).toBe(true);
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(problems).toEqual([]);
  });

  it('sorts by a clicked column header, and reverses on a second click', async () => {
    const before = await linkColumn();
    expect(before[0]).toBe('/gone');
    await page.click('#links-table th:nth-child(3) button');
    const asc = await statusColumn();
    expect(asc).toEqual(['—', '301', '403', '404', '404', '500', '999']);
    expect(await page.getAttribute('#links-table th:nth-child(3)', 'aria-sort')).toBe('ascending');
    const after = await linkColumn();
    expect(after).not.toEqual(before);
    expect(after[0]).toBe('/later');
    await page.click('#links-table th:nth-child(3) button');
    expect(await statusColumn()).toEqual(['999', '500', '404', '404', '403', '301', '—']);
    // Text columns sort too.
    await page.click('#links-table th:nth-child(1) button');
    const byUrl = await linkColumn();
    expect(byUrl).toEqual([...byUrl].sort((a, b) => a.localeCompare(b, undefined, { numeric: true })));
    expect(problems).toEqual([]);
  });

  it('follows the dark scheme, and folds rows into cards in a narrow column', async () => {
    const background = () =>
      page.$eval('body', (b) => (globalThis as unknown as Styles).getComputedStyle(b).backgroundColor);
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).toBe('rgb(13, 17, 23)');
    await page.emulateMedia({ colorScheme: 'light' });
    const display = () =>
      page.$eval('#links-table tbody tr', (tr) => (globalThis as unknown as Styles).getComputedStyle(tr).display);
    expect(await display()).toBe('table-row');
    await page.setViewportSize({ width: 380, height: 900 });
    expect(await display()).toBe('block');
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems).toEqual([]);
  });

  it('filters rows by the search box, in both views', async () => {
    await page.fill('#q', 'logo');
    expect(await linkColumn()).toEqual(['/img/logo.png']);
    expect(await page.textContent('#shown')).toBe('1 of 7 rows');
    await page.fill('#q', '');
    await page.selectOption('#reason', 'not_found');
    expect(await linkColumn()).toEqual(['/gone', '/img/logo.png']);
    expect(await page.textContent('#shown')).toBe('2 of 7 rows');
    await page.selectOption('#reason', '');
    await page.fill('#q', 'FORBIDDEN');
    expect((await linkColumn()).sort()).toEqual(['/members', 'https://linkedin.example/in/x']);
    await page.click('[data-view="by-page"]');
    expect(await page.isVisible('#by-page')).toBe(true);
    expect(await page.isVisible('#by-link')).toBe(false);
    const pages = () =>
      page.$$eval('#pages-table tbody tr:not([hidden]) td:first-child', (tds) =>
        tds.map((td) => td.textContent!.trim()),
      );
    expect(await pages()).toEqual(['/']);
    await page.fill('#q', '');
    expect(await pages()).toEqual(['/', '/blog/a,b', '/docs']);
    expect(await page.textContent('#shown')).toBe('3 rows');
    await page.click('#pages-table th:nth-child(2) button');
    await page.click('#pages-table th:nth-child(2) button');
    expect(await pages()).toEqual(['/', '/docs', '/blog/a,b']);
    await page.screenshot({ path: join(dir, 'report-by-page.png'), fullPage: true });
    // Back to the link view for the screenshot, filtered to the not-found links.
    await page.click('[data-view="by-link"]');
    await page.fill('#q', '404');
    const shot = join(dir, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    await page.fill('#q', '');
    await page.screenshot({ path: join(dir, 'report-all.png'), fullPage: true });
    expect(problems).toEqual([]);
  });
});
