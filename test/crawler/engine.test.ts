// The crawl engine on its own: a loopback site, a sink that keeps what it is given in memory, and no database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import type { CrawlReader, CrawlSink } from '../../src/crawler/sink.js';
import { silentLogger } from '../../src/lib/log.js';
import type { OutcomeWrite, PageWrite } from '../../src/model/crawl-writes.js';
import type { CrawlMode, CrawlStats } from '../../src/model/types.js';
import { html, send, startSite, target, type TestSite } from './site.js';

class MemorySink implements CrawlSink {
  readonly pages: PageWrite[] = [];
  readonly outcomes: OutcomeWrite[] = [];
  readonly touched: string[] = [];
  readonly removed: string[] = [];
  lastStats: CrawlStats | null = null;
  closed = false;
  page(p: PageWrite): void {
    this.pages.push(p);
  }
  outcome(o: OutcomeWrite): void {
    this.outcomes.push(o);
  }
  touch(url: string): void {
    this.touched.push(url);
  }
  remove(url: string): void {
    this.removed.push(url);
  }
  stats(s: CrawlStats): void {
    this.lastStats = s;
  }
  flush(): void {}
  async settle(): Promise<void> {}
  async drain(): Promise<void> {}
  async close(): Promise<void> {
    this.closed = true;
  }
  outcomeOf(url: string): OutcomeWrite | undefined {
    return this.outcomes.find((o) => o.url === url);
  }
}

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

async function crawl(mode: CrawlMode, opts: { reader?: CrawlReader; urls?: string[]; target?: Record<string, unknown> } = {}) {
  const sink = new MemorySink();
  const reader: CrawlReader = opts.reader ?? { sitemapLastmods: () => new Map(), pageAnchors: () => null, okCheckedSince: () => false };
  const result = await runCrawl({
    sink,
    reader,
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
  it('full: crawls the sitemap pages, records each link outcome once, and reports per target how it ended', async () => {
    const { sink, result } = await crawl('full', { target: { walk_links: true } });
    const urls = sink.pages.map((p) => p.url).sort();
    expect(urls).toEqual([`${site.origin}/`, `${site.origin}/a`, `${site.origin}/b`]);
    // An image is checked, not stored as a page.
    expect(sink.outcomeOf(`${site.origin}/img.png`)).toMatchObject({ reason: 'ok', httpStatus: 200 });
    expect(sink.pages.every((p) => p.crawlId === 7)).toBe(true);
    expect(sink.pages.find((p) => p.url === `${site.origin}/a`)?.sitemapLastmod).toBe('2026-01-01');
    expect(sink.outcomeOf(`${site.origin}/missing`)).toMatchObject({ reason: 'not_found', httpStatus: 404 });
    expect(sink.outcomeOf(`${site.origin}/private/x`)).toMatchObject({ reason: 'skipped', message: 'not crawled: disallowed by robots.txt' });
    const perUrl = new Map<string, number>();
    for (const o of sink.outcomes) perUrl.set(o.url, (perUrl.get(o.url) ?? 0) + 1);
    expect([...perUrl.values()].every((n) => n === 1)).toBe(true);
    expect(result.stopped).toBe(false);
    expect(result.targets).toEqual([{ host: site.host, pages: 3, cutByMaxPages: false, unreachable: false, error: null }]);
    expect(result.stats).toMatchObject({ pages: 3, errors: 1 });
    expect(sink.closed).toBe(true);
  });

  it('the crawler decides no clearing: it removes nothing itself at the end of a full crawl', async () => {
    const { sink } = await crawl('full');
    expect(sink.removed).toEqual([]);
  });

  it('partial: reads stored lastmods through the reader and crawls only pages whose lastmod changed', async () => {
    const asked: string[] = [];
    const reader: CrawlReader = {
      pageAnchors: () => null,
      okCheckedSince: () => false,
      sitemapLastmods: (host) => {
        asked.push(host);
        return new Map([
          [`${site.origin}/a`, '2026-01-01'],
          [`${site.origin}/b`, '2025-12-31'],
        ]);
      },
    };
    const { sink } = await crawl('partial', { reader });
    expect(asked).toEqual([site.host]);
    expect(sink.pages.map((p) => p.url)).toEqual([`${site.origin}/b`]);
  });

  it('manual: only the URLs given; max_pages 1 cuts a walk and says so per target', async () => {
    const { sink } = await crawl('manual', { urls: [`${site.origin}/b`] });
    expect(sink.pages.map((p) => p.url)).toEqual([`${site.origin}/b`]);
    const cut = await crawl('full', { target: { use_sitemap: false, walk_links: true, max_pages: 1 } });
    expect(cut.result.targets[0]).toMatchObject({ pages: 1, cutByMaxPages: true });
    expect(cut.sink.outcomeOf(`${site.origin}/a`)).toMatchObject({ reason: 'unknown' });
  });
});
