// The crawl engine on its own: a loopback site, a sink that keeps what it is given in memory, and no database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/engine/index.js';
import type { CrawlReader } from '../../src/crawler/sink.js';
import { silentLogger } from '../../src/lib/log.js';
import type { CrawlMode } from '../../src/model/types.js';
import { MemoryStore } from '../support/memory-store.js';
import { html, send, startSite, target, type TestSite } from '../support/site.js';

let site: TestSite;

beforeAll(async () => {
  site = await startSite({
    '/robots.txt': send(200, 'User-agent: *\nDisallow: /private\n', { 'content-type': 'text/plain' }),
    '/sitemap.xml': send(
      200,
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/a</loc><lastmod>2026-01-01</lastmod></url><url><loc>/b</loc><lastmod>2026-02-01</lastmod></url></urlset>'.replaceAll(
        '<loc>/',
        '<loc>http://HOST/',
      ),
      { 'content-type': 'application/xml' },
    ),
    '/': html('<a href="/a">a</a> <a href="/missing">gone</a> <a href="/private/x">private</a>', { title: 'Home' }),
    '/a': html('<p>apple</p><a href="/">home</a> <a href="/b">b</a>', { title: 'A' }),
    '/b': html('<p>banana</p><img src="/img.png" alt="pic">', { title: 'B' }),
    '/img.png': send(200, 'png', { 'content-type': 'image/png' }),
  });
  // The sitemap names the site's own origin.
  const sm = site.routes.get('/sitemap.xml')!;
  site.route('/sitemap.xml', (req, res, url) => {
    const write = res.end.bind(res);
    res.end = ((body: string) => write(String(body).replaceAll('HOST', site.host))) as typeof res.end;
    return sm(req, res, url);
  });
});

afterAll(() => site.close());

async function crawl(
  mode: CrawlMode,
  opts: { reader?: CrawlReader; urls?: string[]; target?: Record<string, unknown> } = {},
) {
  const sink = new MemoryStore();
  const result = await runCrawl({
    sink: sink.sink(),
    reader: opts.reader ?? sink.reader(),
    crawlId: 7,
    mode,
    urls: opts.urls,
    targets: [target({ host: site.host, ...opts.target })],
    logger: silentLogger,
    threads: false,
    fetcher: { addressPolicy: null },
  });
  return { sink, result };
}

describe('crawl engine with a memory sink (no database)', () => {
  it('full: crawls the sitemap pages, records the link outcomes, and reports per target how it ended', async () => {
    const { sink, result } = await crawl('full', { target: { walk_links: true } });
    const urls = [...sink.pages.keys()].sort();
    expect(urls).toEqual([`${site.origin}/`, `${site.origin}/a`, `${site.origin}/b`]);
    // An image is checked, not stored as a page.
    expect(sink.outcomes.get(`${site.origin}/img.png`)).toMatchObject({ reason: 'ok', httpStatus: 200 });
    expect([...sink.pages.values()].every((p) => p.crawlId === 7)).toBe(true);
    expect(sink.pages.get(`${site.origin}/a`)?.sitemapLastmod).toBe('2026-01-01');
    expect(sink.outcomes.get(`${site.origin}/missing`)).toMatchObject({ reason: 'not_found', httpStatus: 404 });
    expect(sink.outcomes.get(`${site.origin}/private/x`)).toMatchObject({
      reason: 'skipped',
      message: 'not crawled: disallowed by robots.txt',
    });
    expect(result.stopped).toBe(false);
    expect(result.targets).toEqual([
      { host: site.host, pages: 3, cutByMaxPages: false, unreachable: false, error: null },
    ]);
    expect(result.stats).toMatchObject({ pages: 3, errors: 1 });
    expect(sink.closed).toBe(1);
  });

  it('the crawler decides no clearing: it removes nothing itself at the end of a full crawl', async () => {
    const { sink } = await crawl('full');
    expect(sink.removed).toEqual([]);
  });

  it('partial: reads stored lastmods through the reader and crawls only pages whose lastmod changed', async () => {
    const asked: string[] = [];
    const reader: CrawlReader = {
      pageAnchors: async () => null,
      okCheckedSince: async () => false,
      revisits: async () => new Map(),
      sitemapLastmods: async (host) => {
        asked.push(host);
        return new Map([
          [`${site.origin}/a`, '2026-01-01'],
          [`${site.origin}/b`, '2025-12-31'],
        ]);
      },
    };
    const { sink } = await crawl('partial', { reader });
    expect(asked).toEqual([site.host]);
    expect([...sink.pages.keys()]).toEqual([`${site.origin}/b`]);
  });

  it('manual: only the URLs given; max_pages 1 cuts a walk and says so per target', async () => {
    const { sink } = await crawl('manual', { urls: [`${site.origin}/b`] });
    expect([...sink.pages.keys()]).toEqual([`${site.origin}/b`]);
    const cut = await crawl('full', { target: { use_sitemap: false, walk_links: true, max_pages: 1 } });
    expect(cut.result.targets[0]).toMatchObject({ pages: 1, cutByMaxPages: true });
    expect(cut.sink.outcomes.get(`${site.origin}/a`)).toMatchObject({ reason: 'unknown' });
  });

  it('a writer that fails between pages ends the crawl with its error, never with an exception from the progress timer', async () => {
    site.route('/slow-page', (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>slow</title><p>slow</p>'), 150);
    });
    const memory = new MemoryStore();
    const failure = new Error('a batch did not commit');
    let failed = false;
    // As a store's writer behaves once a batch failed: the next hand-over throws (the progress timer flushes).
    const sink = {
      ...memory.sink(),
      flush: () => {
        if (failed) throw failure;
      },
    };
    setTimeout(() => (failed = true), 20);
    const run = runCrawl({
      sink,
      reader: memory.reader(),
      crawlId: 8,
      mode: 'manual',
      urls: [`${site.origin}/slow-page`],
      targets: [target({ host: site.host })],
      logger: silentLogger,
      threads: false,
      fetcher: { addressPolicy: null },
      progressIntervalMs: 10,
    });
    await expect(run).rejects.toBe(failure);
  });
});
