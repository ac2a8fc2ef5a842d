// Conditional re-crawls end to end with a real SQLite store: the repeat full crawl of a loopback site that honours
// ETag and Last-Modified keeps pages, search hits and the link report as they were, while a changed body is indexed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlRunner } from '../../src/backend/crawl-runs/runner.js';
import { buildLinkReport } from '../../src/backend/report/link-report.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TargetConfig } from '../../src/model/config.js';
import type { CrawlRecord } from '../../src/model/types.js';
import { searchPages } from '../../src/store/search-index/search.js';
import type { Store } from '../../src/store/sqlite/store.js';
import { page, startSite, target, type Handler, type TestSite } from '../support/site.js';
import { pageRows, tempStore } from '../support/stored.js';

const PROJECT = 'test1234:eu-north-1';
const LAST_MODIFIED = 'Tue, 03 Nov 2026 08:00:00 GMT';

let site: TestSite;
let store: Store;
let targets: TargetConfig[];
let notModified = 0;
let changing = 'quince marmalade';
/** Whether /broken still answers: it breaks after the first crawl. */
let brokenYet = false;

function validated(body: () => string, v: { etag?: string; lastModified?: string }): Handler {
  return (req, res) => {
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
    if (v.etag) headers.etag = v.etag;
    if (v.lastModified) headers['last-modified'] = v.lastModified;
    if (
      (v.etag && req.headers['if-none-match'] === v.etag) ||
      (!v.etag && v.lastModified && req.headers['if-modified-since'] === v.lastModified)
    ) {
      notModified++;
      return void res.writeHead(304, headers).end();
    }
    res.writeHead(200, headers).end(body());
  };
}

function runner(): CrawlRunner {
  return new CrawlRunner({ store, project: PROJECT, targets, logger: silentLogger, addressPolicy: null });
}

async function fullCrawl(): Promise<CrawlRecord> {
  const r = runner();
  return r.wait((await r.start({ mode: 'full' })).id);
}

const titles = (q: string) =>
  searchPages(store, q, undefined)
    .hits.map((h) => h.title)
    .sort();
const u = (p: string) => `${site.origin}${p}`;

describe('a repeat full crawl of an unchanged site (real store)', () => {
  let first: CrawlRecord;
  let second: CrawlRecord;
  let before: ReturnType<typeof pageRows>;
  let searchBefore: Record<string, string[]>;
  let reportBefore: Awaited<ReturnType<typeof buildLinkReport>>;
  const words = ['apricot', 'blueberry', 'quince', 'plums', 'same'];

  beforeAll(async () => {
    site = await startSite({
      '/': validated(
        () =>
          page('<a href="/a">a</a> <a href="/b">b</a> <a href="/same">s</a> <a href="/changing">c</a>', {
            title: 'Home',
          }),
        { etag: '"home"' },
      ),
      '/a': validated(
        () =>
          page('<p>apricot jam</p><a href="/broken">was fine</a> <a href="/missing">never there</a>', {
            title: 'Apricot',
          }),
        { etag: '"a-1"' },
      ),
      '/b': validated(() => page('<p>blueberry pie</p>', { title: 'Blueberry' }), { lastModified: LAST_MODIFIED }),
      '/same': (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(page('<p>same words each time</p>', { title: 'Same' })),
      // The same ETag whatever the body, and no 304: the body hash tells the change.
      '/changing': (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html', etag: '"stale"' })
          .end(page(`<p>${changing}</p>`, { title: 'Changing' })),
      '/broken': (_req, res) => void res.writeHead(brokenYet ? 404 : 200, { 'content-type': 'text/plain' }).end('x'),
    });
    targets = [target({ host: site.host, use_sitemap: false, respect_robots_txt: false })];
    ({ store } = tempStore());
    first = await fullCrawl();
    before = pageRows(store);
    searchBefore = Object.fromEntries(words.map((w) => [w, titles(w)]));
    reportBefore = await buildLinkReport(store.sql, PROJECT, targets, { limit: 100 });
    brokenYet = true;
    changing = 'plums and pears';
    notModified = 0;
    site.headers.clear();
    second = await fullCrawl();
  });

  afterAll(async () => {
    store?.close();
    await site?.close();
  });

  it('the first crawl indexes everything; its record has no kept pages', () => {
    expect(first.status).toBe('completed');
    expect(first.stats.pages).toBe(6); // /broken too: a document while it answers 200
    expect(first.stats.notModified).toBeUndefined();
    expect(searchBefore).toEqual({
      apricot: ['Apricot'],
      blueberry: ['Blueberry'],
      quince: ['Changing'],
      plums: [],
      same: ['Same'],
    });
  });

  it('sends the stored validators; the record counts 304s and unchanged bodies', () => {
    expect(site.headers.get('/a')!['if-none-match']).toBe('"a-1"');
    expect(site.headers.get('/b')!['if-modified-since']).toBe(LAST_MODIFIED);
    expect(site.headers.get('/same')!['if-none-match']).toBeUndefined();
    expect(notModified).toBe(3);
    expect(second).toMatchObject({ status: 'completed', stats: { pages: 5, notModified: 3, unchanged: 1 } });
  });

  it('keeps 304 and same-body pages as stored (content, index entry), seen by this crawl', () => {
    const after = pageRows(store);
    for (const p of ['/', '/a', '/b', '/same']) {
      const [b, a] = [before.get(u(p))!, after.get(u(p))!];
      // Only which crawl saw it, when, and (kept) which crawl kept it and how: the store counts kept pages so.
      const seen = { crawl_id: 0, last_crawled: '', kept_crawl_id: null, kept_as: null };
      expect({ ...a, ...seen }).toEqual({ ...b, ...seen });
      expect(a.crawl_id).toBe(second.id);
      const kept = a as typeof a & { kept_crawl_id: number | null; kept_as: string | null };
      expect(kept.kept_crawl_id).toBe(second.id);
      expect(kept.kept_as).toBe(p === '/same' ? 'unchanged' : 'notModified');
    }
    expect(searchPages(store, 'apricot', undefined).hits.map((h) => h.url)).toEqual([u('/a')]);
    expect(titles('blueberry')).toEqual(['Blueberry']);
    expect(titles('same')).toEqual(['Same']);
  });

  it('re-indexes a page whose body changed under the same ETag', () => {
    expect(titles('plums')).toEqual(['Changing']);
    expect(titles('quince')).toEqual([]);
  });

  it('checks the links of a 304 page in this crawl: a link broken since the first crawl is reported broken, the old breakage still is', async () => {
    const before404 = reportBefore.notFound.pages.flatMap((p) => p.links.map((l) => l.url));
    expect(before404).toEqual([u('/missing')]);
    const report = await buildLinkReport(store.sql, PROJECT, targets, { limit: 100 });
    expect(report.notFound.pages).toEqual([
      {
        url: u('/a'),
        links: [
          expect.objectContaining({ url: u('/broken'), httpStatus: 404, text: 'was fine' }),
          expect.objectContaining({ url: u('/missing'), httpStatus: 404, text: 'never there' }),
        ],
      },
    ]);
  });

  it('a third crawl of the unchanged site keeps every page, the changed one by its body hash now', async () => {
    notModified = 0;
    const third = await fullCrawl();
    expect(third.stats).toMatchObject({ pages: 5, notModified: 3, unchanged: 2 });
    expect(titles('plums')).toEqual(['Changing']);
  });
});
