// The crawl engine end to end against loopback test sites: what lands in pages, links, link_outcomes, crawls.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlRunner } from '../../src/backend/crawl-runs/runner.js';
import { WRITE_HERE_MAX_PAGES, writesBeside } from '../../src/backend/crawl-runs/run.js';
import { buildLinkReport } from '../../src/backend/report/link-report.js';
import { getCrawl } from '../../src/store/crawls.js';
import type { Store } from '../../src/store/sqlite/store.js';
import type { CrawlRecord } from '../../src/model/types.js';
import type { TargetConfig } from '../../src/model/config.js';
import { silentLogger } from '../../src/lib/log.js';
import { closedPort, hang, html, page, redirect, send, startSite, target, type TestSite } from '../support/site.js';
import { linksOf, outcomes, pageRows, tempStore } from '../support/stored.js';
import { until } from '../support/wait.js';

const PROJECT = 'test1234:eu-north-1';

function runner(
  store: Store,
  targets: TargetConfig[],
  extra: Partial<ConstructorParameters<typeof CrawlRunner>[0]> = {},
): CrawlRunner {
  return new CrawlRunner({
    store,
    project: PROJECT,
    targets,
    logger: silentLogger,
    fetcher: { maxRetryWaitMs: 50, maxRetries: 2, maxSlowDownDelayMs: 100 },
    ...extra,
  });
}

async function crawl(r: CrawlRunner, req: Parameters<CrawlRunner['start']>[0]): Promise<CrawlRecord> {
  const rec = await r.start(req);
  return r.wait(rec.id);
}

describe('full crawl with link tracking (track_links = all)', () => {
  let site: TestSite;
  let ext: TestSite;
  let store: Store;
  let rec: CrawlRecord;
  let refused: number;
  let o: ReturnType<typeof outcomes>;
  let p: ReturnType<typeof pageRows>;
  let u: (path: string) => string;

  beforeAll(async () => {
    refused = await closedPort();
    ext = await startSite({
      '/ok': html('external ok'),
      '/missing': send(404, 'no'),
      '/head-405': (req, res) => {
        if (req.method === 'HEAD') res.writeHead(405).end();
        else res.writeHead(200, { 'content-type': 'text/html' }).end('fine');
      },
      '/moved': redirect(301, '/ok'),
    });
    let rateLimitedOnce = true;
    site = await startSite({
      '/': html(
        [
          '<a href="/ok">ok</a>',
          '<a href="/ok#section">same page, fragment</a>',
          '<a href="/missing">404</a>',
          '<a href="/gone">410</a>',
          '<a href="/auth">401</a>',
          '<a href="/forbidden">403</a>',
          '<a href="/error">500</a>',
          '<a href="/unavailable">503</a>',
          '<a href="/slow">timeout</a>',
          `<a href="http://127.0.0.1:${refused}/nothing">refused</a>`,
          '<a href="/r301">chain</a>',
          '<a href="/loop-a">loop</a>',
          '<a href="/files/guide.pdf">pdf</a>',
          '<a href="/private/secret">robots disallowed</a>',
          '<a href="/denied/page">denied</a>',
          '<a href="/skip-me/please">skipped by pattern</a>',
          '<a href="mailto:a@example.org">mail</a> <a href="tel:+4612345">tel</a> <a href="javascript:void(0)">js</a> <a href="data:text/plain,hi">data</a> <a href="#top">top</a>',
          '<a href="/noindex">noindex</a> <a href="/nofollow">nofollow</a> <a href="/xrobots">x-robots</a>',
          '<a href="/meta">meta</a> <a href="/base/">base</a> <a href="/media">media</a> <a href="/malformed">malformed</a> <a href="/data.json">json</a>',
          '<a href="/rate-limited-once">429 once</a> <a href="/always-429">429 always</a>',
          `<a href="${'EXT'}/ok">ext ok</a> <a href="EXT/missing">ext 404</a> <a href="EXT/head-405">ext head 405</a> <a href="EXT/moved">ext moved</a>`,
        ].join('\n'),
        { title: 'Home', lang: 'en' },
      ),
      '/ok': html('<p>All good here.</p>', { title: 'OK page' }),
      '/missing': send(404, 'gone'),
      '/gone': send(410, 'gone'),
      '/auth': send(401, 'who'),
      '/forbidden': send(403, 'no'),
      '/error': send(500, 'boom'),
      '/unavailable': send(503, 'down'),
      '/slow': hang,
      '/r301': redirect(301, '/r302'),
      '/r302': redirect(302, '/r307'),
      '/r307': redirect(307, '/r308'),
      '/r308': redirect(308, '/chain-end'),
      '/chain-end': html('<p>end of the chain</p>', { title: 'Chain end' }),
      '/loop-a': redirect(302, '/loop-b'),
      '/loop-b': redirect(302, '/loop-a'),
      '/files/guide.pdf': send(200, '%PDF-1.4 fake', { 'content-type': 'application/pdf' }),
      '/robots.txt': send(200, 'User-agent: *\nDisallow: /private/\n', { 'content-type': 'text/plain' }),
      '/private/secret': html('secret'),
      '/denied/page': html('denied'),
      '/skip-me/please': html('skipped'),
      '/noindex': html('<p>hidden words zebra</p><a href="/from-noindex">next</a>', {
        title: 'Noindex',
        head: '<meta name="robots" content="noindex">',
      }),
      '/from-noindex': html('<p>reached through a noindex page</p>'),
      '/nofollow': html('<p>follow nothing</p><a href="/only-from-nofollow">x</a>', {
        head: '<meta name="robots" content="nofollow">',
      }),
      '/only-from-nofollow': html('<p>should not be walked</p>'),
      '/xrobots': html('<p>header says noindex</p>', {}, { 'x-robots-tag': 'noindex' }),
      '/meta': html('<p>Body of the meta page</p>', {
        title: 'Fallback title',
        head: `<script id="svc-page-meta" type="application/json">${JSON.stringify({
          showInSearch: false,
          title: 'Meta title',
          created: '2026-01-02T03:04:05Z',
          modified: '2026-02-03T04:05:06Z',
          language: 'sv',
          tags: ['public', 'post_type/post'],
          customFields: { postId: { type: 'number', value: 42 } },
          superwords: ['allotment'],
        })}</script>`,
      }),
      '/base/': html('<a href="child.html">relative to base</a>', { head: '<base href="/other/">' }),
      '/other/child.html': html('<p>child</p>'),
      '/media': html(
        '<img src="/img/a.png" srcset="/img/a-2x.png 2x, /img/a-3x.png 3x"><picture><source srcset="/img/b.webp 1x, /img/b-2x.webp 2x"></picture>' +
          '<script src="/app.js"></script><link rel="stylesheet" href="/style.css"><iframe src="/embed"></iframe>',
        { head: '<link rel="icon" href="/favicon.ico">' },
      ),
      '/img/a.png': send(200, 'png', { 'content-type': 'image/png' }),
      '/img/a-2x.png': send(200, 'png', { 'content-type': 'image/png' }),
      '/img/b.webp': send(200, 'webp', { 'content-type': 'image/webp' }),
      '/img/b-2x.webp': send(200, 'webp', { 'content-type': 'image/webp' }),
      '/app.js': send(200, '1', { 'content-type': 'text/javascript' }),
      '/style.css': send(200, 'a{}', { 'content-type': 'text/css' }),
      '/favicon.ico': send(200, 'ico', { 'content-type': 'image/x-icon' }),
      '/embed': html('<p>embedded</p>'),
      '/malformed': send(
        200,
        '<html><head><title>Broken</title><body><div><p>unclosed <b>bold <a href="/from-malformed">link</a><table><tr><td>cell</div></p>',
      ),
      '/from-malformed': html('<p>found through malformed html</p>'),
      '/data.json': send(200, '{"a":1}', { 'content-type': 'application/json' }),
      '/rate-limited-once': (_req, res) => {
        if (rateLimitedOnce) {
          rateLimitedOnce = false;
          res.writeHead(429, { 'retry-after': '1' }).end();
        } else res.writeHead(200, { 'content-type': 'text/html' }).end(page('<p>after waiting</p>'));
      },
      '/always-429': send(429, 'slow down', { 'retry-after': '1' }),
    });
    // The home page names the external site; patch it in now that its port is known.
    const home = site.routes.get('/')!;
    site.route('/', (req, res, url) => {
      const write = res.end.bind(res);
      res.end = ((chunk: unknown) => write(String(chunk).replaceAll('EXT', ext.origin))) as typeof res.end;
      return home(req, res, url);
    });
    u = (path: string) => `${site.origin}${path}`;
    ({ store } = tempStore());
    // The second loopback site stands in for the outside world: the address policy must let it through.
    const r = runner(
      store,
      [
        target({
          host: site.host,
          deny_patterns: ['/denied/'],
          skip_link_patterns: ['/skip-me/'],
          // Long enough that a loaded machine answers every other page in time; /slow never answers.
          request_timeout_ms: 2000,
        }),
      ],
      {
        addressPolicy: { allow: [ext.host, `127.0.0.1:${refused}`] },
      },
    );
    rec = await crawl(r, { mode: 'full' });
    o = outcomes(store);
    p = pageRows(store);
  });

  afterAll(async () => {
    await site?.close();
    await ext?.close();
    store?.close();
  });

  it('completes and records stats', async () => {
    expect(rec.status).toBe('completed');
    expect(rec.stats.pages).toBe(p.size);
    expect(rec.stats.errors).toBeGreaterThanOrEqual(9);
    expect(rec.stats.targets?.[site.host]).toEqual({ pages: p.size, cutByMaxPages: false, walkLinks: true });
    const row = (await getCrawl(store.sql, PROJECT, rec.id))!;
    expect(row.finishedAt).not.toBeNull();
  });

  it('classifies every status', () => {
    expect(o.get(u('/ok'))).toMatchObject({ reason: 'ok', http_status: 200 });
    expect(o.get(u('/missing'))).toMatchObject({ reason: 'not_found', http_status: 404 });
    expect(o.get(u('/gone'))).toMatchObject({ reason: 'not_found', http_status: 410 });
    expect(o.get(u('/auth'))).toMatchObject({ reason: 'forbidden', http_status: 401 });
    expect(o.get(u('/forbidden'))).toMatchObject({ reason: 'forbidden', http_status: 403 });
    expect(o.get(u('/error'))).toMatchObject({ reason: 'server_error', http_status: 500 });
    expect(o.get(u('/unavailable'))).toMatchObject({ reason: 'server_error', http_status: 503 });
  });

  it('reports a timeout and a refused connection as server_error with http_status 0', () => {
    expect(o.get(u('/slow'))).toMatchObject({ reason: 'server_error', http_status: 0 });
    expect(o.get(u('/slow'))!.message).toMatch(/timed out/);
    const refusedUrl = `http://127.0.0.1:${refused}/nothing`;
    expect(o.get(refusedUrl)).toMatchObject({ reason: 'server_error', http_status: 0 });
    expect(o.get(refusedUrl)!.message).toMatch(/refused/);
  });

  it('follows a 301/302/307/308 chain by hand, records every hop, and stores the final page', () => {
    const r = o.get(u('/r301'))!;
    expect(r).toMatchObject({ reason: 'redirect', http_status: 301, redirects_to: u('/chain-end') });
    for (const hop of ['/r301', '/r302', '/r307', '/r308']) expect(r.message).toContain(u(hop));
    expect(p.has(u('/chain-end'))).toBe(true);
    expect(p.has(u('/r301'))).toBe(false);
  });

  it('treats a redirect loop as a failure, not a hang', () => {
    expect(o.get(u('/loop-a'))).toMatchObject({ reason: 'server_error', http_status: 302 });
    expect(o.get(u('/loop-a'))!.message).toMatch(/redirect loop/);
  });

  it('stores PDFs and other non-HTML documents without indexing them', () => {
    expect(p.get(u('/files/guide.pdf'))).toMatchObject({
      indexed: 0,
      content_type: 'application/pdf',
      http_status: 200,
    });
    expect(p.get(u('/data.json'))).toMatchObject({ indexed: 0 });
    expect(o.get(u('/files/guide.pdf'))).toMatchObject({ reason: 'ok' });
  });

  it('honours robots.txt, deny_patterns and skip_link_patterns', () => {
    expect(site.hitCount('/private/secret')).toBe(0);
    expect(o.get(u('/private/secret'))).toMatchObject({ reason: 'skipped' });
    expect(site.hitCount('/denied/page')).toBe(0);
    expect(o.get(u('/denied/page'))).toMatchObject({ reason: 'skipped' });
    // skip_link_patterns: not fetched, no outcome, not stored as a link.
    expect(site.hitCount('/skip-me/please')).toBe(0);
    expect(o.has(u('/skip-me/please'))).toBe(false);
    expect(linksOf(store, u('/')).map((l) => l.url)).not.toContain(u('/skip-me/please'));
  });

  it('ignores mailto:, tel:, javascript:, data: and fragment-only links; drops fragments', () => {
    const links = linksOf(store, u('/')).map((l) => l.url);
    expect(links.some((l) => /^(mailto|tel|javascript|data):/.test(l))).toBe(false);
    expect(links.filter((l) => l.startsWith(u('/ok'))).length).toBe(1);
    expect(links).not.toContain(u('/#top'));
    expect(site.hitCount('/ok', 'GET')).toBe(1);
  });

  it('robots meta noindex: stored, not indexed, links still walked; nofollow: links not walked', () => {
    expect(p.get(u('/noindex'))).toMatchObject({ indexed: 0 });
    expect(p.get(u('/ok'))).toMatchObject({ indexed: 1 });
    expect(p.has(u('/from-noindex'))).toBe(true);
    expect(p.has(u('/nofollow'))).toBe(true);
    expect(site.hitCount('/only-from-nofollow', 'GET')).toBe(0);
    expect(p.has(u('/only-from-nofollow'))).toBe(false);
    expect(p.get(u('/xrobots'))).toMatchObject({ indexed: 0 });
  });

  it('indexes noindex pages nowhere in the full-text index', () => {
    const hits = store.db.prepare(`SELECT count(*) AS n FROM pages_fts WHERE pages_fts MATCH 'zebra'`).get() as {
      n: number;
    };
    expect(hits.n).toBe(0);
    const ok = store.db.prepare(`SELECT count(*) AS n FROM pages_fts WHERE pages_fts MATCH 'good'`).get() as {
      n: number;
    };
    expect(ok.n).toBe(1);
  });

  it('reads page meta JSON and falls back to <title> and <html lang>', () => {
    const m = p.get(u('/meta'))!;
    expect(m.title).toBe('Meta title');
    expect(m.language).toBe('sv');
    const meta = JSON.parse(m.meta!) as Record<string, unknown>;
    expect(meta).toMatchObject({
      showInSearch: false,
      created: '2026-01-02T03:04:05.000Z',
      customFields: { postId: { type: 'number', value: 42 } },
      superwords: ['allotment'],
    });
    expect(meta.tags).toEqual(expect.arrayContaining(['public', 'post_type/post', `domain/${site.host}`]));
    const home = p.get(u('/'))!;
    expect(home.title).toBe('Home');
    expect(home.language).toBe('en');
  });

  it('resolves links against <base href>', () => {
    expect(linksOf(store, u('/base/')).map((l) => l.url)).toEqual([u('/other/child.html')]);
    expect(p.has(u('/other/child.html'))).toBe(true);
  });

  it('collects img/source srcset, script, link and iframe links with their element, checking resources without crawling them', () => {
    const links = linksOf(store, u('/media'));
    const byUrl = new Map(links.map((l) => [l.url, l.element]));
    expect(byUrl.get(u('/img/a.png'))).toBe('img');
    expect(byUrl.get(u('/img/a-2x.png'))).toBe('img');
    expect(byUrl.get(u('/img/a-3x.png'))).toBe('img');
    expect(byUrl.get(u('/img/b-2x.webp'))).toBe('source');
    expect(byUrl.get(u('/app.js'))).toBe('script');
    expect(byUrl.get(u('/style.css'))).toBe('link');
    expect(byUrl.get(u('/favicon.ico'))).toBe('link');
    expect(byUrl.get(u('/embed'))).toBe('iframe');
    expect(o.get(u('/img/a-3x.png'))).toMatchObject({ reason: 'not_found' });
    expect(o.get(u('/style.css'))).toMatchObject({ reason: 'ok' });
    // check_css (on by default): the target's stylesheet is fetched for its links and kept as a document.
    expect(site.hitCount('/style.css', 'HEAD')).toBe(0);
    expect(site.hitCount('/style.css', 'GET')).toBe(1);
    expect(p.get(u('/style.css'))!.indexed).toBe(0);
    expect(site.hitCount('/app.js', 'GET')).toBe(0);
    expect(p.has(u('/embed'))).toBe(true);
  });

  it('survives malformed HTML', () => {
    expect(p.get(u('/malformed'))!.title).toBe('Broken');
    expect(p.get(u('/malformed'))!.content).toContain('cell');
    expect(p.has(u('/from-malformed'))).toBe(true);
  });

  it('checks external links once with HEAD, falling back to GET on 405, without walking them', () => {
    expect(o.get(`${ext.origin}/ok`)).toMatchObject({ reason: 'ok', http_status: 200 });
    expect(o.get(`${ext.origin}/missing`)).toMatchObject({ reason: 'not_found', http_status: 404 });
    expect(o.get(`${ext.origin}/head-405`)).toMatchObject({ reason: 'ok', http_status: 200 });
    expect(ext.hitCount('/head-405', 'HEAD')).toBe(1);
    expect(ext.hitCount('/head-405', 'GET')).toBe(1);
    expect(o.get(`${ext.origin}/moved`)).toMatchObject({
      reason: 'redirect',
      http_status: 301,
      redirects_to: `${ext.origin}/ok`,
    });
    expect(ext.hitCount('/ok', 'GET')).toBe(0);
    expect(p.has(`${ext.origin}/ok`)).toBe(false);
  });

  it('waits out a 429 with Retry-After and retries; never reports a page broken for being asked to slow down', () => {
    expect(o.get(u('/rate-limited-once'))).toMatchObject({ reason: 'ok', http_status: 200 });
    expect(p.has(u('/rate-limited-once'))).toBe(true);
    expect(site.hitCount('/rate-limited-once')).toBe(2);
    const always = o.get(u('/always-429'))!;
    expect(always.reason).toBe('skipped');
    expect(site.hitCount('/always-429')).toBe(3);
  });

  it('stores the links of each page and one outcome per link URL', () => {
    const rows = store.db.prepare('SELECT url FROM link_outcomes').all() as { url: string }[];
    expect(new Set(rows.map((r) => r.url)).size).toBe(rows.length);
    for (const l of linksOf(store, u('/'))) expect(o.has(l.url), l.url).toBe(true);
  });
});

describe('the connect-time address policy (on by default)', () => {
  let site: TestSite;
  let other: TestSite;
  let store: Store;

  beforeAll(async () => {
    other = await startSite({ '/secret': html('internal') });
    site = await startSite({
      '/': (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            page(
              `<a href="http://127.0.0.2:${other.port}/secret">a</a> <a href="http://localhost:${other.port}/secret">b</a> <a href="${other.origin}/secret">c</a> <a href="/hop">d</a> <a href="/fine">e</a>`,
            ),
          ),
      '/hop': (_req, res) => void res.writeHead(302, { location: `${other.origin}/secret` }).end(),
      '/fine': html('<p>fine</p>'),
    });
    ({ store } = tempStore());
  });
  afterAll(async () => {
    await site.close();
    await other.close();
    store.close();
  });

  it('reports links and redirects into loopback space other than the target as unknown problems of their page, without connecting', async () => {
    const rec = await crawl(runner(store, [target({ host: site.host })], { addressPolicy: undefined }), {
      mode: 'full',
    });
    expect(rec.status).toBe('completed');
    const o = outcomes(store);
    expect(o.get(`http://127.0.0.2:${other.port}/secret`)).toMatchObject({
      reason: 'unknown',
      http_status: 0,
      message: `not checked: refused by the address policy: 127.0.0.2:${other.port} is a loopback address; svc does not fetch loopback, private, link-local or other non-public addresses unless they are a configured target's host:port`,
      redirects_to: null,
    });
    for (const url of [`http://localhost:${other.port}/secret`, `${other.origin}/secret`]) {
      expect(o.get(url), url).toMatchObject({ reason: 'unknown', http_status: 0 });
      expect(o.get(url)!.message, url).toMatch(
        /^not checked: refused by the address policy: .* a loopback address; svc does not fetch/,
      );
    }
    expect(o.get(`${site.origin}/hop`)).toMatchObject({
      reason: 'unknown',
      http_status: 302,
      redirects_to: `${other.origin}/secret`,
    });
    expect(o.get(`${site.origin}/hop`)!.message).toBe(
      `not checked: redirected to an address the policy refuses: ${site.origin}/hop (302) → ${other.origin}/secret; ${other.host} is a loopback address; svc does not fetch loopback, private, link-local or other non-public addresses unless they are a configured target's host:port`,
    );
    // The report lists them under the page that links to them; not broken, so the crawl counts no error.
    const report = await buildLinkReport(store.sql, PROJECT, [target({ host: site.host })], { limit: 1000 });
    expect(report.unknown.pages).toEqual([
      expect.objectContaining({
        url: `${site.origin}/`,
        links: expect.arrayContaining([expect.objectContaining({ url: `${site.origin}/hop`, httpStatus: 302 })]),
      }),
    ]);
    expect(report.unknown.count).toBe(4);
    expect(report.notFound.count + report.forbidden.count + report.serverError.count).toBe(0);
    expect(rec.stats.errors).toBe(0);
    expect(o.get(`${site.origin}/fine`)).toMatchObject({ reason: 'ok' });
    expect(other.log).toEqual([]);
  });
});

describe('max_pages on an infinite calendar', () => {
  let site: TestSite;
  let store: Store;

  beforeAll(async () => {
    site = await startSite({
      '/calendar': (_req, res, url) => {
        const m = Number(url.searchParams.get('month') ?? 0);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            page(
              `<h1>Month ${m}</h1><a href="/calendar?month=${m + 1}">next</a> <a href="/calendar?month=${m - 1}">prev</a> <a href="/calendar?month=${m + 2}">+2</a>`,
            ),
          );
      },
    });
    ({ store } = tempStore());
  });
  afterAll(async () => {
    await site.close();
    store.close();
  });

  it('stops at max_pages, records the rest as unknown and marks the target cut; nothing is removed', async () => {
    const t = target({ host: site.host, start_paths: ['/calendar?month=0'], max_pages: 5, concurrency: 1 });
    // A page from an earlier crawl that this one will not see: must survive a cut crawl.
    const r = runner(store, [t]);
    store.db
      .prepare(`INSERT INTO pages (url, host, http_status, last_crawled, crawl_id) VALUES (?, ?, 200, '2020-01-01', 0)`)
      .run(`${site.origin}/old-page`, site.host);
    const rec = await crawl(r, { mode: 'full' });
    expect(rec.status).toBe('completed');
    expect(rec.stats.targets?.[site.host]).toEqual({ pages: 5, cutByMaxPages: true, walkLinks: true });
    expect(site.hitCount('/calendar', 'GET')).toBe(5);
    const unknown = [...outcomes(store).values()].filter((x) => x.reason === 'unknown');
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown[0]!.message).toMatch(/max_pages/);
    expect(pageRows(store).has(`${site.origin}/old-page`)).toBe(true);
  });
});

describe('sitemaps and partial crawls', () => {
  let site: TestSite;
  let store: Store;
  const lastmods: Record<string, string> = {
    '/a': '2026-01-01T00:00:00Z',
    '/b': '2026-01-01T00:00:00Z',
    '/c': '2026-01-01',
  };
  const bodies: Record<string, string> = { '/a': 'alpha version one', '/b': 'bravo', '/c': 'charlie' };
  let r: CrawlRunner;

  const urlset = (paths: string[], origin: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
      .map((p) => `<url><loc>${origin}${p}</loc><lastmod>${lastmods[p]}</lastmod></url>`)
      .join('')}</urlset>`;

  beforeAll(async () => {
    site = await startSite({
      '/robots.txt': (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(`User-agent: *\nAllow: /\nSitemap: ${site.origin}/sitemap-index.xml\n`),
      '/sitemap-index.xml': (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${site.origin}/sitemap-1.xml</loc><lastmod>2026-01-01</lastmod></sitemap><sitemap><loc>${site.origin}/sitemap-2.xml.gz</loc></sitemap><sitemap><loc>${site.origin}/broken.xml</loc></sitemap></sitemapindex>`,
          ),
      '/sitemap-1.xml': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset(['/a', '/b'], site.origin)),
      '/sitemap-2.xml.gz': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipSync(urlset(['/c'], site.origin))),
      '/broken.xml': send(200, '<urlset><url><loc>', { 'content-type': 'application/xml' }),
      '/a': (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(page(`<p>${bodies['/a']}</p><a href="/not-in-sitemap">x</a>`, { title: 'A' })),
      '/b': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<p>${bodies['/b']}</p>`, { title: 'B' })),
      '/c': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<p>${bodies['/c']}</p>`, { title: 'C' })),
      '/not-in-sitemap': html('<p>walk me not</p>'),
    });
    ({ store } = tempStore());
    r = runner(store, [target({ host: site.host })]);
  });
  afterAll(async () => {
    await site.close();
    store.close();
  });

  it('full: reads robots.txt Sitemap: lines and sitemap indexes (gzip too, malformed tolerated), crawls their pages with lastmod, and does not walk links', async () => {
    const rec = await crawl(r, { mode: 'full' });
    expect(rec.status).toBe('completed');
    const p = pageRows(store);
    expect([...p.keys()].sort()).toEqual([`${site.origin}/a`, `${site.origin}/b`, `${site.origin}/c`]);
    expect(p.get(`${site.origin}/a`)!.sitemap_lastmod).toBe('2026-01-01T00:00:00.000Z');
    expect(p.get(`${site.origin}/c`)!.sitemap_lastmod).toBe('2026-01-01');
    // A link to a page outside the sitemap is checked (HEAD), not crawled.
    expect(site.hitCount('/not-in-sitemap', 'GET')).toBe(0);
    expect(site.hitCount('/not-in-sitemap', 'HEAD')).toBe(1);
    expect(outcomes(store).get(`${site.origin}/not-in-sitemap`)).toMatchObject({ reason: 'ok' });
  });

  it('partial: crawls only the pages whose sitemap lastmod changed, and never walks', async () => {
    const before = { a: site.hitCount('/a', 'GET'), b: site.hitCount('/b', 'GET'), c: site.hitCount('/c', 'GET') };
    lastmods['/a'] = '2026-03-01T12:00:00Z';
    bodies['/a'] = 'alpha version two';
    bodies['/b'] = 'bravo changed without a new lastmod';
    const rec = await crawl(r, { mode: 'partial' });
    expect(rec.status).toBe('completed');
    expect(site.hitCount('/a', 'GET')).toBe(before.a + 1);
    expect(site.hitCount('/b', 'GET')).toBe(before.b);
    expect(site.hitCount('/c', 'GET')).toBe(before.c);
    const p = pageRows(store);
    expect(p.get(`${site.origin}/a`)!.content).toContain('alpha version two');
    expect(p.get(`${site.origin}/a`)!.sitemap_lastmod).toBe('2026-03-01T12:00:00.000Z');
    expect(p.get(`${site.origin}/b`)!.content).not.toContain('changed');
    expect(rec.stats.pages).toBe(1);
  });
});

describe('the full-crawl clearing rule and pages not seen', () => {
  let site: TestSite;
  let store: Store;
  let r: CrawlRunner;
  let version = 1;

  beforeAll(async () => {
    site = await startSite({
      '/': (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            page(
              version === 1
                ? '<a href="/old">old</a> <a href="/moved">moved</a> <a href="/broken">broken</a>'
                : '<a href="/new">new</a> <a href="/broken">broken</a>',
            ),
          ),
      '/old': (_req, res) =>
        void (version === 1
          ? res.writeHead(200, { 'content-type': 'text/html' }).end(page('old page'))
          : res.writeHead(404).end()),
      '/moved': redirect(301, '/new'),
      '/new': html('<p>new page</p>'),
      '/broken': send(404),
    });
    ({ store } = tempStore());
    r = runner(store, [target({ host: site.host })]);
  });
  afterAll(async () => {
    await site.close();
    store.close();
  });

  it('a full crawl clears redirected and skipped URLs when it starts and removes the pages it did not see when it completes', async () => {
    const first = await crawl(r, { mode: 'full' });
    expect(first).toMatchObject({ status: 'completed' });
    let o = outcomes(store);
    expect(o.get(`${site.origin}/moved`)).toMatchObject({ reason: 'redirect' });
    expect(pageRows(store).has(`${site.origin}/old`)).toBe(true);
    // Left by some earlier crawl: a skipped URL and an unknown one no page links to any more.
    store.db
      .prepare(
        `INSERT INTO link_outcomes (url, http_status, reason, message, crawl_id, checked_at) VALUES (?, 0, 'skipped', 'x', 0, 'then'), (?, 0, 'unknown', 'y', 0, 'then'), (?, 404, 'not_found', 'z', 0, 'then')`,
      )
      .run(`${site.origin}/was-skipped`, `${site.origin}/was-unknown`, `${site.origin}/was-missing`);

    version = 2;
    const second = await crawl(r, { mode: 'full' });
    expect(second).toMatchObject({ status: 'completed' });
    o = outcomes(store);
    expect(o.has(`${site.origin}/moved`)).toBe(false);
    expect(o.has(`${site.origin}/was-skipped`)).toBe(false);
    expect(o.has(`${site.origin}/was-unknown`)).toBe(false);
    // Only redirected, skipped and unknown URLs are cleared.
    expect(o.get(`${site.origin}/was-missing`)).toMatchObject({ reason: 'not_found' });
    expect(o.get(`${site.origin}/broken`)).toMatchObject({ reason: 'not_found', crawl_id: second.id });
    const p = pageRows(store);
    expect(p.has(`${site.origin}/old`)).toBe(false);
    expect(p.has(`${site.origin}/new`)).toBe(true);
    expect([...p.values()].every((row) => row.crawl_id === second.id)).toBe(true);
  });

  it('a manual crawl neither clears nor removes anything, and a gone page it re-crawls leaves the index', async () => {
    store.db
      .prepare(
        `INSERT INTO link_outcomes (url, http_status, reason, message, crawl_id, checked_at) VALUES (?, 301, 'redirect', 'x', 0, 'then')`,
      )
      .run(`${site.origin}/kept-redirect`);
    store.db
      .prepare(
        `INSERT INTO pages (url, host, http_status, last_crawled, crawl_id) VALUES (?, ?, 200, '2020-01-01', 0), (?, ?, 200, '2020-01-01', 0)`,
      )
      .run(`${site.origin}/unrelated`, site.host, `${site.origin}/old`, site.host);
    const rec = await crawl(r, { mode: 'manual', urls: [`${site.origin}/old`] });
    expect(rec.status).toBe('completed');
    expect(outcomes(store).has(`${site.origin}/kept-redirect`)).toBe(true);
    const p = pageRows(store);
    expect(p.has(`${site.origin}/unrelated`)).toBe(true);
    expect(p.has(`${site.origin}/old`)).toBe(false);
  });
});

describe('manual crawls', () => {
  let site: TestSite;
  let store: Store;
  let r: CrawlRunner;

  beforeAll(async () => {
    site = await startSite({
      '/': html('<a href="/one">1</a>'),
      '/one': html('<p>one</p><a href="/two">two</a> <a href="/missing">missing</a>', { title: 'One' }),
      '/two': html('<p>two</p><a href="/three">three</a>'),
      '/three': html('<p>three</p>'),
    });
    ({ store } = tempStore());
    r = runner(store, [target({ host: site.host })]);
  });
  afterAll(async () => {
    await site.close();
    store.close();
  });

  it('crawls only the given URLs and checks their links without walking them', async () => {
    const rec = await crawl(r, { mode: 'manual', urls: [`${site.origin}/one`] });
    expect(rec).toMatchObject({ status: 'completed', mode: 'manual', urls: [`${site.origin}/one`] });
    expect([...pageRows(store).keys()]).toEqual([`${site.origin}/one`]);
    expect(site.hitCount('/', 'GET')).toBe(0);
    expect(site.hitCount('/two', 'GET')).toBe(0);
    expect(site.hitCount('/two', 'HEAD')).toBe(1);
    expect(site.hitCount('/three')).toBe(0);
    expect(outcomes(store).get(`${site.origin}/missing`)).toMatchObject({ reason: 'not_found' });
    expect(site.hitCount('/robots.txt')).toBe(1);
    expect(site.hitCount('/sitemap.xml')).toBe(0);
  });

  it('refuses bad requests with an error naming the field and the rule, and creates no crawl', async () => {
    const count = () => (store.db.prepare('SELECT count(*) AS n FROM crawls').get() as { n: number }).n;
    const before = count();
    const bad: [unknown, RegExp][] = [
      [{ mode: 'manual' }, /^urls: is required when mode is manual/],
      [{ mode: 'manual', urls: [] }, /^urls: must list at least one URL/],
      [{ mode: 'manual', urls: 'http://x/' }, /^urls: must be an array/],
      [{ mode: 'manual', urls: [`${site.origin}/ok`, 'not a url'] }, /^urls\[1\]: must be a full http\(s\) URL/],
      [
        { mode: 'manual', urls: ['https://example.org/page'] },
        /^urls\[0\]: host example\.org is not a configured target/,
      ],
      [{ mode: 'manual', urls: [`https://${site.host}/x`] }, /^urls\[0\]: must be a http:\/\/ URL/],
      [{ mode: 'manual', urls: [42] }, /^urls\[0\]: must be a full http\(s\) URL/],
      [{ mode: 'sideways' }, /^mode: must be one of full, partial, manual/],
      [{}, /^mode: is required: full, partial or manual/],
      [{ mode: 'full', urls: [`${site.origin}/`] }, /^urls: is only allowed with mode manual/],
    ];
    for (const [req, msg] of bad) {
      let err: unknown;
      try {
        await r.start(req as never);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(req)).toMatchObject({ code: 'invalid_input' });
      expect((err as Error).message).toMatch(msg);
    }
    expect(count()).toBe(before);
  });

  it('refuses to start without any target', async () => {
    const empty = runner(store, []);
    await expect(empty.start({ mode: 'full' })).rejects.toThrow(/no crawl targets are configured/);
  });
});

describe('one crawl at a time, stopping', () => {
  let site: TestSite;
  let store: Store;

  beforeAll(async () => {
    site = await startSite({}, (_req, res, url) => {
      // An endless site that answers slowly, so a crawl is still running when the test acts.
      const n = Number(url.pathname.slice(1)) || 0;
      setTimeout(
        () =>
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(page(`<a href="/${n + 1}">next</a> <a href="/${n + 2}">skip</a>`)),
        30,
      );
    });
    ({ store } = tempStore());
  });
  afterAll(async () => {
    await site.close();
    store.close();
  });

  it('refuses a second start while one is running, with a conflict error', async () => {
    const r = runner(store, [target({ host: site.host, max_pages: 3, concurrency: 1 })]);
    const first = await r.start({ mode: 'full' });
    expect(first.status).toBe('queued');
    await expect(r.start({ mode: 'partial' })).rejects.toThrow(expect.objectContaining({ code: 'conflict' }));
    // Another runner on the same database (another process) is refused too.
    const other = runner(store, [target({ host: site.host })]);
    await expect(other.start({ mode: 'full' })).rejects.toThrow(/already/);
    const done = await r.wait(first.id);
    expect(done.status).toBe('completed');
    const again = await r.start({ mode: 'manual', urls: [`${site.origin}/1`] });
    expect((await r.wait(again.id)).status).toBe('completed');
  });

  it('stopAll stops a running crawl (status stopped), leaving what it found but did not fetch as unknown', async () => {
    const r = runner(store, [target({ host: site.host, max_pages: 10_000, concurrency: 1 })]);
    const ended: CrawlRecord[] = [];
    r.onCrawlEnded((rec) => ended.push(rec));
    const before = site.log.length;
    const rec = await r.start({ mode: 'full' });
    // Asked for /3, so /, /1 and /2 were fetched and read and links past them found: a wait on the site, not a
    // guess at a loaded machine's pace.
    await until('the crawl to ask for /3', () => site.log.slice(before).includes('GET /3'));
    expect((await getCrawl(store.sql, PROJECT, rec.id))!.status).toBe('running');
    await r.stopAll();
    const final = (await getCrawl(store.sql, PROJECT, rec.id))!;
    expect(final.status).toBe('stopped');
    expect(final.finishedAt).not.toBeNull();
    expect(ended.map((e) => e.id)).toEqual([rec.id]);
    // The crawl's own count: an outcome row keeps the crawl that last decided it, and this site was crawled before.
    expect(final.stats.reasons?.unknown?.problemLinks).toBeGreaterThan(0);
  });

  it('writes live stats while running', async () => {
    const r = runner(store, [target({ host: site.host, max_pages: 40, concurrency: 2 })], { progressIntervalMs: 50 });
    const seen: number[] = [];
    r.onProgress((_id, prog) => seen.push(prog.pagesDone));
    const rec = await r.start({ mode: 'full' });
    // Poll the record the way a /v1 client would: it shows pages while the crawl is still running.
    let mid = (await getCrawl(store.sql, PROJECT, rec.id))!;
    for (let i = 0; i < 100 && mid.status !== 'completed' && mid.stats.pages === 0; i++) {
      await new Promise((res) => setTimeout(res, 50));
      mid = (await getCrawl(store.sql, PROJECT, rec.id))!;
    }
    expect(mid.status).toBe('running');
    expect(mid.stats.pages).toBeGreaterThan(0);
    expect(mid.stats.pages).toBeLessThan(40);
    const done = await r.wait(rec.id);
    expect(done.stats.pages).toBe(40);
    expect(seen.length).toBeGreaterThan(3);
  });
});

describe('where a crawl writes', () => {
  it('a manual crawl of a few pages commits on the crawling thread; a full or partial crawl, or a long manual list, on a writer thread', () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `http://x.example/p${i}`);
    expect(writesBeside({ mode: 'manual', urls: urls(1) })).toBe(false);
    expect(writesBeside({ mode: 'manual', urls: urls(WRITE_HERE_MAX_PAGES) })).toBe(false);
    expect(writesBeside({ mode: 'manual', urls: urls(WRITE_HERE_MAX_PAGES + 1) })).toBe(true);
    expect(writesBeside({ mode: 'full' })).toBe(true);
    expect(writesBeside({ mode: 'partial' })).toBe(true);
  });
});
