// Conditional re-crawls in the engine alone (memory sink, no database): a loopback site that honours ETag and
// Last-Modified and counts its 304s; pages with the same body are kept, changed ones parsed again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl, type CrawlResult } from '../../src/crawler/engine/index.js';
import { decodeFound, encodeFound } from '../../src/crawler/revisit.js';
import { silentLogger } from '../../src/lib/log.js';
import { MemoryStore } from '../support/memory-store.js';
import { page, startSite, target, type Handler, type TestSite } from '../support/site.js';

const LAST_MODIFIED = 'Mon, 02 Nov 2026 10:00:00 GMT';
let site: TestSite;
let notModified = 0;
/** The body of /changing: changes between crawls while its ETag stays the same (a server that ignores If-None-Match). */
let changing = 'first words';

/** A page with validators that answers 304 when the request's own validators still hold. */
function validated(body: string, v: { etag?: string; lastModified?: string }): Handler {
  return (req, res) => {
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
    if (v.etag) headers.etag = v.etag;
    if (v.lastModified) headers['last-modified'] = v.lastModified;
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    if ((v.etag && inm === v.etag) || (!v.etag && v.lastModified && ims === v.lastModified)) {
      notModified++;
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, headers).end(page(body, { title: req.url ?? '' }));
  };
}

beforeAll(async () => {
  site = await startSite({
    '/': validated('<a href="/etag">e</a> <a href="/lm">l</a> <a href="/same">s</a> <a href="/changing">c</a>', {
      etag: '"root-1"',
    }),
    '/etag': validated(
      '<p>apple orchard</p><a href="/broken">gone since the first crawl</a> <a href="/deep">deeper</a>',
      { etag: '"etag-1"' },
    ),
    '/lm': validated('<p>lemon grove</p><img src="/pic.png" alt="a picture">', { lastModified: LAST_MODIFIED }),
    // Found only through /etag: a 304 there must still walk to it.
    '/deep': validated('<p>deep page</p>', { etag: '"deep-1"' }),
    '/same': (_req, res) =>
      void res.writeHead(200, { 'content-type': 'text/html' }).end(page('<p>same every time</p>')),
    '/changing': (_req, res) =>
      void res.writeHead(200, { 'content-type': 'text/html', etag: '"never-changes"' }).end(page(`<p>${changing}</p>`)),
    // A resource: checked (HEAD), never fetched as a page.
    '/pic.png': (_req, res) =>
      void res.writeHead(200, { 'content-type': 'image/png', 'last-modified': LAST_MODIFIED }).end('png'),
    '/broken': (_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('no'),
  });
});

afterAll(() => site.close());

/** A crawl of `site` (or o.host) into mem: full unless o.mode says otherwise; o.target adds settings. */
function crawl(
  mem: MemoryStore,
  crawlId: number,
  o: { host?: string; mode?: 'full' | 'manual'; urls?: string[]; target?: Record<string, unknown> } = {},
): Promise<CrawlResult> {
  return runCrawl({
    sink: mem.sink(),
    reader: mem.reader(),
    crawlId,
    mode: o.mode ?? 'full',
    urls: o.urls,
    targets: [target({ host: o.host ?? site.host, use_sitemap: false, respect_robots_txt: false, ...o.target })],
    logger: silentLogger,
    threads: false,
    fetcher: { addressPolicy: null },
  });
}

describe('a re-crawl of an unchanged site', () => {
  const mem = new MemoryStore();
  let first: CrawlResult;
  let second: CrawlResult;
  const u = (p: string) => `${site.origin}${p}`;

  beforeAll(async () => {
    first = await crawl(mem, 1);
    site.headers.clear();
    notModified = 0;
    changing = 'second words';
    second = await crawl(mem, 2);
  });

  it('the first crawl stores validators and a body hash with every page it parsed', () => {
    expect(first.stats).toMatchObject({ pages: 6, notModified: 0, unchanged: 0 });
    const etag = mem.pages.get(u('/etag'))!;
    expect(etag.revisit).toMatchObject({ etag: '"etag-1"', lastModified: null });
    expect(etag.revisit!.bodyHash).toMatch(/^[\w-]{43}$/);
    expect(mem.pages.get(u('/lm'))!.revisit).toMatchObject({ etag: null, lastModified: LAST_MODIFIED });
  });

  it('sends If-None-Match / If-Modified-Since for stored pages with validators, and none for pages without', () => {
    expect(site.headers.get('/etag')!['if-none-match']).toBe('"etag-1"');
    expect(site.headers.get('/lm')!['if-modified-since']).toBe(LAST_MODIFIED);
    expect(site.headers.get('/same')!['if-none-match']).toBeUndefined();
    expect(site.headers.get('/same')!['if-modified-since']).toBeUndefined();
  });

  it('keeps 304 pages and same-body pages as they are (not written again), and counts both', () => {
    expect(notModified).toBe(4); // /, /etag, /lm, /deep
    expect(second.stats).toMatchObject({ pages: 6, notModified: 4, unchanged: 1 }); // unchanged: /same
    const writtenSecond = mem.written.slice(6);
    // Only the page whose body changed under the same ETag is parsed and written again.
    expect(writtenSecond).toEqual([u('/changing')]);
    expect(mem.pages.get(u('/changing'))!.content).toContain('second words');
    expect([...mem.kept].sort()).toEqual([u('/'), u('/deep'), u('/etag'), u('/lm'), u('/same')]);
    expect(mem.pages.get(u('/etag'))!.crawlId).toBe(2);
  });

  it('replays the links of kept pages: walked (a page found only through a 304 page) and checked in this crawl', () => {
    expect(site.hitCount('/deep')).toBe(2);
    const broken = mem.outcomes.get(u('/broken'))!;
    expect(broken).toMatchObject({ reason: 'not_found', httpStatus: 404, crawlId: 2 });
    expect(mem.outcomes.get(u('/etag'))).toMatchObject({ reason: 'ok', httpStatus: 200, crawlId: 2 });
    expect(mem.outcomes.get(u('/pic.png'))).toMatchObject({ reason: 'ok', crawlId: 2 });
    expect(mem.linksOf(u('/etag')).get(u('/broken'))).toEqual({ element: 'a', text: 'gone since the first crawl' });
  });
});

describe('redirects and manual crawls', () => {
  it('a page reached through a redirect is kept when its body is the same; a manual crawl asks with validators too', async () => {
    const r = await startSite({
      '/': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(page('<a href="/old">old</a>')),
      '/old': (_req, res) => void res.writeHead(301, { location: '/new' }).end(),
      '/new': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end(page('<p>moved here</p><a href="/gone">x</a>')),
      '/gone': (_req, res) => void res.writeHead(404).end(),
      '/v': validated('<p>validated</p>', { etag: '"v"' }),
    });
    try {
      const mem = new MemoryStore();
      const run = (crawlId: number, mode: 'full' | 'manual', urls?: string[]) =>
        crawl(mem, crawlId, { host: r.host, mode, urls });
      await run(1, 'full');
      expect(mem.pages.has(`${r.origin}/new`)).toBe(true);
      const second = await run(2, 'full');
      expect(second.stats).toMatchObject({ unchanged: 2 }); // / and /new (through /old)
      expect(mem.kept).toContain(`${r.origin}/new`);
      expect(mem.outcomes.get(`${r.origin}/gone`)).toMatchObject({ reason: 'not_found', crawlId: 2 });
      const before = notModified;
      const manual = await run(3, 'manual', [`${r.origin}/v`]);
      await run(4, 'manual', [`${r.origin}/v`]);
      expect(manual.stats.pages).toBe(1);
      expect(notModified - before).toBe(1);
      expect(mem.outcomes.get(`${r.origin}/v`)).toMatchObject({ reason: 'ok', httpStatus: 200, crawlId: 4 });
    } finally {
      await r.close();
    }
  });
});

describe('stored rows read in batches', () => {
  it('a re-crawl reads the stored rows of the pages queued next in one read, each page once, and keeps them all', async () => {
    const pages = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`/p${i}`, validated(`<p>page ${i}</p>`, { etag: `"p${i}"` })]),
    );
    const links = Object.keys(pages)
      .map((p) => `<a href="${p}">${p}</a>`)
      .join(' ');
    const r = await startSite({ '/': validated(links, { etag: '"home"' }), ...pages });
    try {
      const mem = new MemoryStore();
      await crawl(mem, 1, { host: r.host });
      const firstReads = mem.revisitReads.length;
      const second = await crawl(mem, 2, { host: r.host });
      expect(second.stats).toMatchObject({ pages: 101, notModified: 101 });
      const reads = mem.revisitReads.slice(firstReads);
      // The home page alone (nothing is queued yet), then the 100 pages it links in batches of 64.
      expect(reads.map((urls) => urls.length)).toEqual([1, 64, 36]);
      const asked = reads.flat();
      expect(new Set(asked).size).toBe(asked.length);
      expect(asked.sort()).toEqual([r.url('/'), ...Object.keys(pages).map((p) => r.url(p))].sort());
    } finally {
      await r.close();
    }
  });
});

describe('settings a stored page was made under', () => {
  it('a crawl under other settings (here content_selector) sends no validators and parses every page again', async () => {
    const mem = new MemoryStore();
    await crawl(mem, 1);
    site.headers.clear();
    const before = mem.written.length;
    await crawl(mem, 2, { target: { content_selector: 'p' } });
    expect(site.headers.get('/etag')!['if-none-match']).toBeUndefined();
    expect(mem.written.length - before).toBe(6); // every page parsed and written again, nothing kept
    expect(mem.kept).toEqual([]);
  });
});

describe('found links in their stored form', () => {
  it('round-trip with every flag, and a text that is not that form reads as null', () => {
    const f = {
      nofollow: true,
      html: true,
      links: [
        { url: 'https://a.example/x', element: 'a', walkable: true, nofollow: true, text: 'x', fragment: 'top' },
        {
          url: 'https://a.example/s.css',
          element: 'link',
          walkable: false,
          nofollow: false,
          text: '',
          stylesheet: true,
        },
      ],
    };
    expect(decodeFound(encodeFound(f))).toEqual(f);
    expect(decodeFound('{"l":[[1]]}')).toBeNull();
    expect(decodeFound('not json')).toBeNull();
  });
});
