// The link report builder: pure assembly, the rows kept ready by migration 2's triggers, and buildLinkReport (on
// SQLite, and on PostgreSQL where a server is installed).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { assembleLinkReport, targetWalksLinks } from '../../src/backend/report/assemble.js';
import { buildLinkReport } from '../../src/backend/report/link-report.js';
import { createCrawl, setCrawlStatus, updateCrawlStats } from '../../src/store/crawls.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';
import { clearForFullCrawl, removePagesNotSeen } from '../../src/store/pages.js';
import { saveOutcomes, savePages } from '../../src/store/sqlite/writes.js';
import { Store } from '../../src/store/sqlite/store.js';
import type { LinkReport } from '../../src/model/types.js';
import { HOST_A, HOST_B, makeApp, makeAppOn, tempDir, TOKEN } from '../support/app.js';
import { manyWrites, outcome, linkingPage as page, seedSmallSite, smallSiteWrites } from '../support/writes.js';
import { DIALECTS, storeKit, writeThrough } from '../support/stores.js';
import type { ReportRow } from '../../src/store/report-query.js';

const SECTIONS = ['notFound', 'forbidden', 'serverError', 'redirect', 'unknown'] as const;
const a = `https://${HOST_A}`;

/** Every (page, link) pair of the report in order, flattened. */
function flat(r: LinkReport): string[] {
  return SECTIONS.flatMap((s) => r[s].pages.flatMap((p) => p.links.map((l) => `${s} ${p.url} ${l.url}`)));
}

/** What report_links and report_counts must hold, computed from scratch with a plain join. */
function expectMaintained(store: Store): void {
  const fresh = store.db
    .prepare(
      `SELECT rr.rank, p.url AS page_url, l.url, p.host FROM links l JOIN link_outcomes o ON o.url = l.url
       JOIN report_reasons rr ON rr.reason = o.reason JOIN pages p ON p.id = l.page_id ORDER BY 1, 2, 3`,
    )
    .all();
  expect(store.db.prepare('SELECT rank, page_url, url, host FROM report_links ORDER BY 1, 2, 3').all()).toEqual(fresh);
  const counts = store.db.prepare('SELECT host, rank, n FROM report_counts WHERE n <> 0 ORDER BY 1, 2').all();
  const freshCounts = store.db
    .prepare(
      `SELECT p.host, rr.rank, COUNT(*) AS n FROM links l JOIN link_outcomes o ON o.url = l.url
       JOIN report_reasons rr ON rr.reason = o.reason JOIN pages p ON p.id = l.page_id GROUP BY 1, 2 ORDER BY 1, 2`,
    )
    .all();
  expect(counts).toEqual(freshCounts);
}

describe('assembleLinkReport (pure)', () => {
  const row = (rank: number, pageUrl: string, url: string, redirectsTo: string | null = null): ReportRow => ({
    rank,
    pageUrl,
    url,
    httpStatus: 404,
    message: 'm',
    redirectsTo,
    element: 'a',
    text: `to ${url}`,
    blocked: url === 'y',
    firstSeen: null,
  });

  it('groups sorted rows by section, then by page, and keeps counts whatever the rows', () => {
    const r = assembleLinkReport({
      rows: [row(0, 'p1', 'x'), row(0, 'p1', 'y'), row(0, 'p2', 'x'), row(3, 'p1', 'z', 'z2'), row(4, 'p1', 'w')],
      tallies: [
        { rank: 0, problemLinks: 2, occurrences: 3 },
        { rank: 3, problemLinks: 1, occurrences: 1 },
        { rank: 4, problemLinks: 1, occurrences: 1 },
      ],
      ranks: null,
      topLinks: [],
      targets: [],
      lastFullCrawl: null,
    });
    expect(r.notFound).toEqual({
      count: 3,
      pages: [
        {
          url: 'p1',
          links: [
            { url: 'x', httpStatus: 404, message: 'm', element: 'a', text: 'to x' },
            { url: 'y', httpStatus: 404, message: 'm', element: 'a', text: 'to y', blocked: true },
          ],
        },
        { url: 'p2', links: [{ url: 'x', httpStatus: 404, message: 'm', element: 'a', text: 'to x' }] },
      ],
    });
    expect(r.redirect.pages[0]!.links[0]!.redirectsTo).toBe('z2');
    expect(r.unknown.pages[0]!.links[0]).not.toHaveProperty('redirectsTo');
    expect(r.truncated).toBe(false);
    // One computation: the counts and the sections' counts come from the same tallies.
    expect(r.counts).toMatchObject({ pages: 0, problemLinks: 4, occurrences: 5 });
    expect(r.counts.reasons.not_found).toEqual({ problemLinks: 2, occurrences: 3 });
  });

  it('is truncated when the counts exceed the rows', () => {
    const r = assembleLinkReport({
      rows: [row(0, 'p', 'x')],
      tallies: [{ rank: 0, problemLinks: 1, occurrences: 2 }],
      ranks: null,
      topLinks: [],
      targets: [],
      lastFullCrawl: null,
    });
    expect(r.truncated).toBe(true);
    expect(r.notFound.count).toBe(2);
  });

  it('walkLinks: configured value, else on without sitemaps, else as the last full crawl found (on before any)', () => {
    expect(targetWalksLinks({ walk_links: false, use_sitemap: false }, true)).toBe(false);
    expect(targetWalksLinks({ walk_links: true, use_sitemap: true }, false)).toBe(true);
    expect(targetWalksLinks({ walk_links: undefined, use_sitemap: false }, false)).toBe(true);
    expect(targetWalksLinks({ walk_links: undefined, use_sitemap: true }, true)).toBe(true);
    expect(targetWalksLinks({ walk_links: undefined, use_sitemap: true }, false)).toBe(false);
    expect(targetWalksLinks({ walk_links: undefined, use_sitemap: true }, undefined)).toBe(true);
  });
});

describe.each(DIALECTS)('buildLinkReport on %s', (dialect) => {
  const kit = storeKit(dialect);
  let app: App;
  afterEach(async () => app?.close());
  afterAll(() => kit.stop());

  it('reports every problem reason in the documented order, never ok or skipped', async () => {
    app = await makeAppOn(kit);
    await writeThrough(app.store, smallSiteWrites());
    const r = await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 1000 });
    // Page URLs in binary order: "http://…" sorts before "https://…".
    expect(flat(r)).toEqual([
      `notFound http://${HOST_B}/ http://${HOST_B}/doc.pdf`,
      `notFound ${a}/ ${a}/missing`,
      `notFound ${a}/b ${a}/missing`,
      `forbidden ${a}/ ${a}/secret`,
      `serverError ${a}/ ${a}/fail`,
      `redirect ${a}/ ${a}/old`,
      `redirect ${a}/b ${a}/old`,
      `unknown ${a}/ ${a}/later`,
    ]);
    expect(r.redirect.pages[0]!.links[0]).toEqual({
      url: `${a}/old`,
      httpStatus: 301,
      message: 'redirect message',
      redirectsTo: `${a}/new`,
      element: 'a',
      text: '',
    });
    expect(r.unknown.pages[0]!.links[0]).toEqual({
      url: `${a}/later`,
      httpStatus: 0,
      message: 'not fetched: max_pages reached',
      element: 'a',
      text: '',
    });
    expect(SECTIONS.map((s) => r[s].count)).toEqual([3, 1, 1, 2, 1]);
    expect(r.truncated).toBe(false);
    expect(r.lastFullCrawl).toBeNull();
    expect(r.targets).toEqual([
      { host: HOST_A, linkTracking: 'all', walkLinks: true, lastCrawlError: null, pages: expect.any(Number) },
      { host: HOST_B, linkTracking: 'pdf', walkLinks: true, lastCrawlError: null, pages: expect.any(Number) },
    ]);
  });

  it('caps links across sections, keeps full counts, and says truncated', async () => {
    app = await makeAppOn(kit);
    const many = manyWrites(40, 10); // 400 problem links
    await writeThrough(app.store, many);
    const counts = many.counts;
    const full = await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 5000 });
    const all = flat(full);
    expect(all).toHaveLength(400);
    expect(full.truncated).toBe(false);
    for (const limit of [1, 7, 80, 399]) {
      const r = await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit });
      expect(flat(r)).toEqual(all.slice(0, limit));
      expect(r.truncated).toBe(true);
      expect(SECTIONS.map((s) => r[s].count)).toEqual([
        counts.not_found,
        counts.forbidden,
        counts.server_error,
        counts.redirect,
        counts.unknown,
      ]);
    }
    expect((await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 400 })).truncated).toBe(false);
  });

  it('limits to one configured target, case-insensitively; refuses an unknown one naming target', async () => {
    app = await makeAppOn(kit);
    await writeThrough(app.store, smallSiteWrites());
    const r = await buildLinkReport(app.store.sql, TOKEN, app.config.targets, {
      limit: 1000,
      target: 'B.example:8080',
    });
    expect(flat(r)).toEqual([`notFound http://${HOST_B}/ http://${HOST_B}/doc.pdf`]);
    expect(SECTIONS.map((s) => r[s].count)).toEqual([1, 0, 0, 0, 0]);
    expect(r.targets.map((t) => t.host)).toEqual([HOST_B]);
    await expect(
      buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 10, target: 'nope.example' }),
    ).rejects.toThrow(/^target: "nope.example" is not a configured target/);
  });

  it('refuses a limit outside 1..5000 or not an integer, naming limit', async () => {
    app = await makeAppOn(kit);
    for (const limit of [0, -1, 5001, 1.5, Number.NaN]) {
      await expect(buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit })).rejects.toThrow(
        /^limit: must be an integer from 1 to 5000/,
      );
    }
  });

  it('lastFullCrawl is the last completed full crawl only', async () => {
    app = await makeAppOn(kit);
    const full = (await createCrawl(app.store.sql, TOKEN, 'full'))!;
    await setCrawlStatus(app.store.sql, full.id, 'completed');
    const at = (await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 1 })).lastFullCrawl;
    expect(at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const manual = (await createCrawl(app.store.sql, TOKEN, 'manual', [`${a}/`]))!;
    await setCrawlStatus(app.store.sql, manual.id, 'completed');
    expect((await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 1 })).lastFullCrawl).toBe(at);
  });

  it('walkLinks follows what the last completed full crawl recorded, unless configured', async () => {
    app = await makeAppOn(kit, { targets: [{ host: HOST_A }, { host: HOST_B, walk_links: true }] });
    const walk = async () =>
      (await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 1 })).targets.map((t) => t.walkLinks);
    expect(await walk()).toEqual([true, true]); // no full crawl yet: no sitemap found
    const full = (await createCrawl(app.store.sql, TOKEN, 'full'))!;
    await updateCrawlStats(app.store.sql, full.id, {
      pages: 1,
      links: 0,
      errors: 0,
      targets: { [HOST_A]: { pages: 1, cutByMaxPages: false, walkLinks: false } },
    });
    await setCrawlStatus(app.store.sql, full.id, 'completed');
    expect(await walk()).toEqual([false, true]);
    // A full crawl that failed does not count.
    const failed = (await createCrawl(app.store.sql, TOKEN, 'full'))!;
    await updateCrawlStats(app.store.sql, failed.id, {
      pages: 0,
      links: 0,
      errors: 1,
      targets: { [HOST_A]: { pages: 0, cutByMaxPages: false, walkLinks: true } },
    });
    await setCrawlStatus(app.store.sql, failed.id, 'failed');
    expect(await walk()).toEqual([false, true]);
  });
});

describe('report rows kept ready by triggers (migration 2)', () => {
  let app: App;
  afterEach(async () => app?.close());

  it('follow outcome changes, re-crawled pages, deleted pages and the full-crawl clearing', async () => {
    app = await makeApp();
    await seedSmallSite(app);
    expectMaintained(app.sqlite);
    // A fixed link, a newly broken one, and a redirect that now fails.
    saveOutcomes(app.sqlite, [
      outcome(`${a}/missing`, 'ok'),
      outcome(`${a}/ok`, 'not_found'),
      outcome(`${a}/old`, 'server_error'),
    ]);
    expectMaintained(app.sqlite);
    // The page is re-crawled with fewer links.
    savePages(app.sqlite, [page(`${a}/`, [`${a}/ok`, `${a}/fail`])]);
    expectMaintained(app.sqlite);
    const r = await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 100 });
    expect(flat(r)).toEqual([
      `notFound http://${HOST_B}/ http://${HOST_B}/doc.pdf`,
      `notFound ${a}/ ${a}/ok`,
      `serverError ${a}/ ${a}/fail`,
      `serverError ${a}/b ${a}/old`,
    ]);
    await clearForFullCrawl(app.store.sql);
    expectMaintained(app.sqlite);
    // Pages a completed full crawl did not see leave, and their links with them (cascade).
    await removePagesNotSeen(app.store.sql, HOST_A, 99);
    expectMaintained(app.sqlite);
    expect(flat(await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 100 }))).toEqual([
      `notFound http://${HOST_B}/ http://${HOST_B}/doc.pdf`,
    ]);
  });

  it('stay equal to a fresh computation after many random writes', async () => {
    app = await makeApp();
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const reasons = ['ok', 'skipped', 'not_found', 'forbidden', 'server_error', 'redirect', 'unknown'] as const;
    for (let round = 0; round < 30; round++) {
      const pages = Array.from({ length: 5 }, () => {
        const host = rnd(2) ? HOST_A : HOST_B;
        const links = Array.from({ length: rnd(6) }, () => `https://l.example/${rnd(15)}`);
        return page(`https://${host}/p${rnd(12)}`, links);
      });
      savePages(app.sqlite, pages);
      saveOutcomes(
        app.sqlite,
        Array.from({ length: 6 }, () => outcome(`https://l.example/${rnd(15)}`, reasons[rnd(reasons.length)]!)),
      );
      if (round % 7 === 3)
        app.sqlite.db.prepare('DELETE FROM pages WHERE url = ?').run(`https://${HOST_A}/p${rnd(12)}`);
      if (round % 11 === 5) await clearForFullCrawl(app.store.sql);
    }
    expectMaintained(app.sqlite);
  });

  it('are filled from existing data when a version-1 database is upgraded', () => {
    const path = join(tempDir(), 'svc.db');
    const v1 = new Database(path);
    v1.exec(MIGRATIONS[0]!.sql);
    v1.pragma('user_version = 1');
    const pageId = v1
      .prepare(`INSERT INTO pages (url, host, http_status, last_crawled) VALUES (?, ?, 200, 'x') RETURNING id`)
      .get(`${a}/`, HOST_A) as { id: number };
    v1.prepare(`INSERT INTO links (page_id, url, element) VALUES (?, ?, 'a'), (?, ?, 'a')`).run(
      pageId.id,
      `${a}/gone`,
      pageId.id,
      `${a}/fine`,
    );
    v1.prepare(
      `INSERT INTO link_outcomes (url, http_status, reason, checked_at) VALUES (?, 404, 'not_found', 'x'), (?, 200, 'ok', 'x')`,
    ).run(`${a}/gone`, `${a}/fine`);
    v1.close();
    const store = new Store(path);
    expectMaintained(store);
    expect(store.db.prepare('SELECT url FROM report_links').all()).toEqual([{ url: `${a}/gone` }]);
    store.close();
  });
});

describe('target hosts as the crawler stores them', () => {
  it('a target configured with its default port matches pages stored under the canonical host', async () => {
    const app = await makeApp({ targets: [{ host: 'c.example:443', scheme: 'https', track_links: 'all' }] });
    try {
      savePages(app.sqlite, [page('https://c.example/', ['https://c.example/gone'], { host: 'c.example' })]);
      const full = (await createCrawl(app.store.sql, TOKEN, 'full'))!;
      await updateCrawlStats(app.store.sql, full.id, {
        pages: 1,
        links: 1,
        errors: 0,
        targets: { 'c.example': { pages: 1, cutByMaxPages: false, walkLinks: false } },
      });
      await setCrawlStatus(app.store.sql, full.id, 'completed');
      saveOutcomes(app.sqlite, [outcome('https://c.example/gone', 'not_found')]);
      for (const target of ['c.example:443', 'c.example', 'C.EXAMPLE:443']) {
        const r = await buildLinkReport(app.store.sql, TOKEN, app.config.targets, { limit: 10, target });
        expect(flat(r)).toEqual(['notFound https://c.example/ https://c.example/gone']);
        expect(r.targets).toEqual([
          {
            host: 'c.example:443',
            linkTracking: 'all',
            walkLinks: false,
            lastCrawlError: null,
            pages: expect.any(Number),
          },
        ]);
      }
    } finally {
      await app.close();
    }
  });
});
