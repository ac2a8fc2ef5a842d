// What a crawl writes for URLs the stores could choke on or the site would be asked for twice, on both stores: a
// 3 kB link (PostgreSQL's btree keys hold about 2.7 kB, and one such row used to fail its whole write batch) is
// refused alone with an outcome that says why, its page and the page's other links kept; a redirect to a page the
// crawl has is not followed, so that page is asked for once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../src/backend/embedded.js';
import { buildLinkReport } from '../../src/backend/report/link-report.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { MAX_URL_BYTES } from '../../src/crawler/urls.js';
import { silentLogger } from '../../src/lib/log.js';
import { html, redirect, startSite, type TestSite } from '../support/site.js';
import { DIALECTS, storeKit } from '../support/stores.js';

const PROJECT = 'urls1234:eu-north-1';
const LONG = `/long/${'x'.repeat(3000)}`;

describe.each(DIALECTS)('URLs a crawl writes, on %s', (dialect) => {
  const kit = storeKit(dialect);
  let site: TestSite;
  let outside: TestSite;

  beforeAll(async () => {
    outside = await startSite({ '/ok': html('fine') });
    site = await startSite({
      '/': html(
        `<a href="/a">a</a> <a href="${LONG}">long</a> <a href="/b">b</a> <a href="/moved">moved</a>` +
          ` <a href="${outside.origin}/ok?q=${'y'.repeat(3000)}">long outside</a> <a href="${outside.origin}/ok">ok</a>`,
      ),
      '/a': html('<a href="/">home</a> <a href="/b">b</a>'),
      '/b': html('<a href="/moved">moved</a>'),
      // Found on / and /b: leads to a page the crawl has.
      '/moved': redirect(301, '/a'),
    });
  });
  afterAll(async () => {
    await site.close();
    await outside.close();
    await kit.stop();
  });

  it('a 3 kB link is refused alone; a redirect to a crawled page does not ask for it again', async () => {
    const { store } = await kit.fresh({ token: PROJECT });
    const target = { host: site.host, scheme: 'http', use_sitemap: false, track_links: 'all' };
    const config = parseConfig({ project: { public_token: PROJECT }, targets: [target], log_level: 'silent' });
    const b = new EmbeddedBackend({ config, store, logger: silentLogger });
    try {
      const started = await b.startCrawl({ mode: 'full' });
      const rec = await b.waitForCrawl(started.id, { timeoutMs: 20_000 });
      expect(rec.status).toBe('completed');
      expect(rec.stats.pages).toBe(3);
      // The long URLs were never asked for; /a once, though /moved leads to it too.
      expect(site.log.filter((l) => l.startsWith('GET /long'))).toEqual([]);
      expect(outside.log.filter((l) => l.includes('?q='))).toEqual([]);
      expect(site.hitCount('/a', 'GET')).toBe(1);
      expect(site.hitCount('/moved')).toBe(1);

      const pages = await store.sql.all<{ url: string }>('SELECT url FROM pages ORDER BY url');
      expect(pages.map((p) => new URL(p.url).pathname)).toEqual(['/', '/a', '/b']);
      // The home page keeps every link, the long ones under a cut stand-in no longer than the limit.
      const links = await store.sql.all<{ url: string }>(
        `SELECT l.url FROM links l JOIN pages p ON p.id = l.page_id WHERE p.url = ? ORDER BY l.url`,
        [site.url('/')],
      );
      expect(links).toHaveLength(6);
      const cut = links.filter((l) => l.url.endsWith('…'));
      expect(cut).toHaveLength(2);
      for (const l of cut) expect(Buffer.byteLength(l.url)).toBeLessThanOrEqual(MAX_URL_BYTES);

      const outcomes = await store.sql.all<{ url: string; reason: string; message: string; redirects_to: string }>(
        'SELECT url, reason, message, redirects_to FROM link_outcomes ORDER BY url',
      );
      const long = outcomes.filter((o) => o.url.endsWith('…'));
      expect(long).toHaveLength(2);
      for (const o of long) {
        expect(o.reason).toBe('unknown');
        expect(o.message).toMatch(
          new RegExp(`^not checked: the URL is 30\\d\\d bytes long, longer than the ${MAX_URL_BYTES}`),
        );
      }
      expect(outcomes.find((o) => o.url === site.url('/moved'))).toMatchObject({
        reason: 'redirect',
        redirects_to: site.url('/a'),
      });
      expect(outcomes.find((o) => o.url === site.url('/a'))).toMatchObject({ reason: 'ok' });

      // The report lists the refused links as unknown, with the reason.
      const report = await buildLinkReport(store.sql, PROJECT, config.targets, { limit: 100 });
      const unknown = report.unknown.pages.flatMap((p) => p.links);
      expect(unknown.map((l) => l.url).filter((u) => u.endsWith('…'))).toHaveLength(2);
    } finally {
      await b.close();
    }
  }, 40_000);
});
