// Each target setting changes what a crawl does: one small site per setting, assertions on the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlRunner } from '../../src/backend/crawl-runs/runner.js';
import type { Store } from '../../src/store/sqlite/store.js';
import type { CrawlRecord } from '../../src/model/types.js';
import { parseConfig } from '../../src/cli/load-config.js';
import type { TargetConfig } from '../../src/model/config.js';
import { silentLogger } from '../../src/lib/log.js';
import { html, page, send, startSite, target, type Handler, type TestSite } from '../support/site.js';
import { linksOf, outcomes, pageRows, tempStore } from '../support/stored.js';

const PROJECT = 'settings1:eu-north-1';

async function crawlOnce(targets: TargetConfig[], allow: string[] = []): Promise<{ store: Store; rec: CrawlRecord }> {
  const { store } = tempStore();
  const r = new CrawlRunner({ store, project: PROJECT, targets, logger: silentLogger, addressPolicy: { allow } });
  const rec = await r.wait((await r.start({ mode: 'full' })).id);
  return { store, rec };
}

describe('target settings', () => {
  const sites: TestSite[] = [];
  const stores: Store[] = [];
  const site = async (routes: Record<string, Handler>) => {
    const s = await startSite(routes);
    sites.push(s);
    return s;
  };
  const run = async (targets: TargetConfig[], allow: string[] = []) => {
    const out = await crawlOnce(targets, allow);
    stores.push(out.store);
    return out;
  };
  let ext: TestSite;

  beforeAll(async () => {
    ext = await site({ '/x.pdf': send(404), '/page': send(404) });
  });
  afterAll(async () => {
    for (const s of sites) await s.close();
    for (const s of stores) s.close();
  });

  it('track_links = pdf tracks (stores, checks, reports) only links to PDF documents', async () => {
    const s = await site({
      '/': (_q, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            page(
              `<a href="/doc.pdf">d</a> <a href="/missing.pdf">m</a> <a href="/missing-page">p</a> <a href="${ext.origin}/x.pdf">x</a> <a href="${ext.origin}/page">e</a>`,
            ),
          ),
      '/doc.pdf': send(200, '%PDF', { 'content-type': 'application/pdf' }),
      '/missing.pdf': send(404),
      '/missing-page': send(404),
    });
    const { store } = await run([target({ host: s.host, track_links: 'pdf' })], [ext.host]);
    expect(
      linksOf(store, `${s.origin}/`)
        .map((l) => l.url)
        .sort(),
    ).toEqual([`${ext.origin}/x.pdf`, `${s.origin}/doc.pdf`, `${s.origin}/missing.pdf`].sort());
    const o = outcomes(store);
    expect(o.get(`${s.origin}/missing.pdf`)).toMatchObject({ reason: 'not_found' });
    expect(o.get(`${ext.origin}/x.pdf`)).toMatchObject({ reason: 'not_found' });
    expect(o.has(`${s.origin}/missing-page`)).toBe(false);
    expect(ext.hitCount('/page')).toBe(0);
    // Walking still follows every page link.
    expect(s.hitCount('/missing-page', 'GET')).toBe(1);
  });

  it('walk_query_strings = false drops query strings, so a page is crawled once', async () => {
    const s = await site({
      '/': html('<a href="/list?page=2">2</a> <a href="/list?page=3&sort=up">3</a>'),
      '/list': html('<p>list</p><a href="/list?page=4">4</a>'),
    });
    const { store } = await run([target({ host: s.host, walk_query_strings: false })]);
    expect(s.hitCount('/list', 'GET')).toBe(1);
    expect(s.log.filter((l) => l.includes('?'))).toEqual([]);
    expect(linksOf(store, `${s.origin}/`).map((l) => l.url)).toEqual([`${s.origin}/list`]);
    expect([...pageRows(store).keys()].sort()).toEqual([`${s.origin}/`, `${s.origin}/list`]);
  });

  it('walk_links = true walks links from sitemap pages and start_paths too; use_sitemap = false ignores the sitemap', async () => {
    const routes = (origin: () => string): Record<string, Handler> => ({
      '/sitemap.xml': (_q, res) =>
        void res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(`<urlset><url><loc>${origin()}/a</loc></url><url><loc>${origin()}/only-in-sitemap</loc></url></urlset>`),
      '/': html('<a href="/start-child">c</a>'),
      '/start-child': html('<p>child of start</p>'),
      '/a': html('<a href="/b">b</a>'),
      '/b': html('<p>b</p>'),
      '/only-in-sitemap': html('<p>s</p>'),
    });
    let aOrigin = '';
    const a = await site(routes(() => aOrigin));
    aOrigin = a.origin;
    const walked = await run([target({ host: a.host, walk_links: true })]);
    expect([...pageRows(walked.store).keys()].map((u) => u.slice(a.origin.length)).sort()).toEqual([
      '/',
      '/a',
      '/b',
      '/only-in-sitemap',
      '/start-child',
    ]);
    expect(walked.rec.stats.targets?.[a.host]).toMatchObject({ walkLinks: true });

    let bOrigin = '';
    const b = await site(routes(() => bOrigin));
    bOrigin = b.origin;
    const noSitemap = await run([target({ host: b.host, use_sitemap: false })]);
    expect(b.hitCount('/sitemap.xml')).toBe(0);
    expect([...pageRows(noSitemap.store).keys()].map((u) => u.slice(b.origin.length)).sort()).toEqual([
      '/',
      '/start-child',
    ]);
  });

  it('respect_robots_txt = false and respect_robots_meta = false', async () => {
    const s = await site({
      '/robots.txt': send(200, 'User-agent: *\nDisallow: /private/\n', { 'content-type': 'text/plain' }),
      '/': html('<a href="/private/p">p</a> <a href="/nofollow">n</a> <a href="/noindex">i</a>'),
      '/private/p': html('<p>private</p>'),
      '/nofollow': html('<a href="/beyond">b</a>', { head: '<meta name="robots" content="nofollow">' }),
      '/beyond': html('<p>beyond</p>'),
      '/noindex': html('<p>indexed anyway</p>', { head: '<meta name="robots" content="noindex">' }),
    });
    const { store } = await run([target({ host: s.host, respect_robots_txt: false, respect_robots_meta: false })]);
    const p = pageRows(store);
    expect(p.has(`${s.origin}/private/p`)).toBe(true);
    expect(p.has(`${s.origin}/beyond`)).toBe(true);
    expect(p.get(`${s.origin}/noindex`)).toMatchObject({ indexed: 1 });
  });

  it('crawl_delay_ms spaces the requests to a target; request_headers go to the target only', async () => {
    const times: number[] = [];
    const stamp: Handler = (_q, res) => {
      times.push(Date.now());
      res.writeHead(200, { 'content-type': 'text/html' }).end(page('<p>x</p>'));
    };
    const s = await site({
      '/': (_q, res) => {
        times.push(Date.now());
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(page(`<a href="/1">1</a><a href="/2">2</a><a href="/3">3</a><a href="${ext.origin}/page">e</a>`));
      },
      '/1': stamp,
      '/2': stamp,
      '/3': stamp,
    });
    await run(
      [
        target({
          host: s.host,
          crawl_delay_ms: 120,
          concurrency: 4,
          use_sitemap: false,
          respect_robots_txt: false,
          request_headers: { 'x-crawl-token': 'tok' },
        }),
      ],
      [ext.host],
    );
    expect(times).toHaveLength(4);
    // Stamped where they arrive, so a loaded machine can delay one arrival and shorten the next gap: no gap near
    // zero (four requests at once would be), and the span of three delays.
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(60);
    expect(times[3]! - times[0]!).toBeGreaterThanOrEqual(300);
    expect(s.headers.get('/2')!['x-crawl-token']).toBe('tok');
    expect(ext.headers.get('/page')!['x-crawl-token']).toBeUndefined();
  });

  it('honours robots.txt Crawl-delay for our agent', async () => {
    const times: number[] = [];
    const s = await site({
      '/robots.txt': send(200, 'User-agent: svc-crawler\nCrawl-delay: 0.15\n', { 'content-type': 'text/plain' }),
      '/': (_q, res) => {
        times.push(Date.now());
        res.writeHead(200, { 'content-type': 'text/html' }).end(page('<a href="/1">1</a><a href="/2">2</a>'));
      },
      '/1': (_q, res) => void (times.push(Date.now()), res.writeHead(200).end('x')),
      '/2': (_q, res) => void (times.push(Date.now()), res.writeHead(200).end('x')),
    });
    const started = Date.now();
    await run([target({ host: s.host, concurrency: 4, use_sitemap: false })]);
    const elapsed = Date.now() - started;
    expect(times).toHaveLength(3);
    // Request starts are spaced by 150 ms on our side, so three of them cannot fit in less than 300 ms, however
    // late each one reaches the server (gaps between arrivals depend on the machine's load; this does not).
    expect(elapsed).toBeGreaterThanOrEqual(300);
  });

  it('content_selector, title_selector and tags shape what is indexed', async () => {
    const s = await site({
      '/': html(
        '<nav>Navigation noise</nav><article><h2 class="headline">Article headline</h2><p>Article body words</p></article><footer>Footer noise</footer>',
        { title: 'Site name' },
      ),
    });
    const { store } = await run([
      target({ host: s.host, content_selector: 'article', title_selector: '.headline', tags: ['section/docs'] }),
    ]);
    const row = pageRows(store).get(`${s.origin}/`)!;
    expect(row.title).toBe('Article headline');
    expect(row.content).toBe('Article headline Article body words');
    expect(row.tags.split(' ')).toEqual(['section/docs', `domain/${s.host}`]);
  });

  it('refuses a config whose content_selector is not a CSS selector, naming the field', () => {
    expect(() => parseConfig({ targets: [{ host: '127.0.0.1:9', content_selector: 'main >>> ][' }] })).toThrow(
      /targets\[0\]\.content_selector: must be a valid CSS selector/,
    );
  });
});
