// The pure parts of the crawler: URL normalisation, classification, HTML extraction, robots, sitemaps,
// page meta, the address policy.
import { describe, expect, it } from 'vitest';
import { addressClassText, createAddressPolicy, classifyAddress } from '../../src/crawler/address-policy.js';
import { classify, reasonForStatus } from '../../src/crawler/classify.js';
import { parseRetryAfter } from '../../src/crawler/fetcher.js';
import { sniffCharset } from '../../src/crawler/html/charset.js';
import { extractHtml } from '../../src/crawler/html/extractor.js';
import { DEFINITION_TERM } from '../../src/model/crawl-writes.js';
import { HtmlSink } from '../../src/crawler/html/sink.js';
import { collapseWhitespace } from '../../src/crawler/html/text.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { buildPageMeta } from '../../src/crawler/page-meta.js';
import { parseRobotsDirectives, parseRobotsTxt, xRobotsTag } from '../../src/crawler/robots.js';
import { normalizeLastmod, parseSitemap } from '../../src/crawler/sitemap.js';
import { isPdfUrl, normalizeUrl, parseSrcset } from '../../src/crawler/urls.js';
import { canonicalTargetHost } from '../../src/model/site-urls.js';
import { target } from '../support/site.js';
import { TargetRun } from '../../src/crawler/engine/target.js';
import { FifoQueue } from '../../src/crawler/engine/queue.js';
import { UrlQueue } from '../../src/crawler/engine/url-queue.js';
import { UrlSet } from '../../src/crawler/engine/url-set.js';

describe('urls', () => {
  it('normalises scheme and host case, default ports, fragments and empty queries', () => {
    expect(normalizeUrl('HTTP://Example.ORG:80/a/b?x=1#frag')).toBe('http://example.org/a/b?x=1');
    expect(normalizeUrl('https://example.org:443')).toBe('https://example.org/');
    expect(normalizeUrl('https://example.org:8443/p?')).toBe('https://example.org:8443/p');
    expect(normalizeUrl('../c?q=1', 'http://h/a/b/')).toBe('http://h/a/c?q=1');
    expect(normalizeUrl('  /x  ', 'http://h/a')).toBe('http://h/x');
    expect(normalizeUrl('/list?page=2', 'http://h/', { dropQuery: true })).toBe('http://h/list');
    expect(normalizeUrl('/p?#top', 'http://h/')).toBe('http://h/p');
    expect(normalizeUrl('/p#a?b', 'http://h/')).toBe('http://h/p'); // a '?' inside the fragment is no query
    expect(normalizeUrl('/p?a#b#c', 'http://h/')).toBe('http://h/p?a');
    expect(normalizeUrl('/p?q=a?b#c', 'http://h/', { dropQuery: true })).toBe('http://h/p');
    expect(normalizeUrl('/a b/é?x=ü y', 'http://h/')).toBe('http://h/a%20b/%C3%A9?x=%C3%BC%20y');
  });

  it('ignores mailto:, tel:, javascript:, data:, fragment-only and other schemes', () => {
    for (const raw of [
      'mailto:a@b',
      'tel:+1',
      'javascript:void(0)',
      'JavaScript:x',
      'data:text/plain,x',
      '#top',
      '',
      'ftp://h/x',
      'about:blank',
    ]) {
      expect(normalizeUrl(raw, 'http://h/'), raw).toBeNull();
    }
    expect(normalizeUrl('http://[bad', 'http://h/')).toBeNull();
  });

  it('parses srcset candidates, keeping commas inside URLs', () => {
    expect(parseSrcset('a.png 1x, b.png 2x')).toEqual(['a.png', 'b.png']);
    expect(parseSrcset('c.jpg 480w,d.jpg 800w')).toEqual(['c.jpg', 'd.jpg']);
    expect(parseSrcset('img.php?w=1,2 1x, other.png')).toEqual(['img.php?w=1,2', 'other.png']);
    expect(parseSrcset('  single.png  ')).toEqual(['single.png']);
  });

  it('knows PDF links by their path and target hosts in canonical form', () => {
    expect(isPdfUrl('http://h/docs/Guide.PDF?dl=1')).toBe(true);
    expect(isPdfUrl('http://h/pdf/page')).toBe(false);
    expect(canonicalTargetHost('Example.org:443', 'https')).toBe('example.org');
    expect(canonicalTargetHost('127.0.0.1:8080', 'http')).toBe('127.0.0.1:8080');
  });

  it("a target's canonical form of a normalized URL: the query cut unless walk_query_strings, as normalizeUrl cuts it", () => {
    const cuts = new TargetRun(target({ host: 'h', walk_query_strings: false }));
    const walks = new TargetRun(target({ host: 'h', walk_query_strings: true }));
    for (const raw of ['http://h/a?x=1&y=2', 'http://h/list?page=2#top', 'http://h/p', 'http://h/', 'http://h/%3F?q']) {
      const url = normalizeUrl(raw)!;
      expect(cuts.canon(url)).toBe(normalizeUrl(url, undefined, { dropQuery: true }));
      expect(walks.canon(url)).toBe(url);
    }
    expect(cuts.canon('http://h/a?x=1')).toBe('http://h/a');
  });
});

describe('the compact URL set', () => {
  it('holds exactly the URLs added, any length and script, across its growth', () => {
    const set = new UrlSet();
    const urls = Array.from({ length: 20_000 }, (_, i) => `http://example.org/p/${i}.html`);
    urls.push('http://example.org/ä/ünïcode/日本', `http://example.org/${'x'.repeat(10_000)}`, '');
    for (const url of urls) set.add(url);
    for (const url of urls) set.add(url);
    expect(set.size).toBe(urls.length);
    for (const url of urls) expect(set.has(url)).toBe(true);
    // Near misses: a prefix, one more byte, another case, another character of the same UTF-8 length.
    for (const miss of [
      'http://example.org/p/1',
      'http://example.org/p/0.htmlx',
      'http://example.org/P/5.html',
      'http://example.org/ö/ünïcode/日本',
    ])
      expect(set.has(miss)).toBe(false);
    expect(new UrlSet().has('')).toBe(false);
  });
});

describe('the compact URL queue', () => {
  it('hands URLs out first in, first out, across its buffers, and gives back the rest', () => {
    const queue = new UrlQueue();
    const long = `http://example.org/${'y'.repeat(2 * 1024 * 1024)}`;
    const urls = [
      ...Array.from({ length: 60_000 }, (_, i) => `http://example.org/p/${i}.html`),
      long,
      'http://example.org/日本',
    ];
    for (const url of urls.slice(0, 30_000)) queue.push(url);
    const out: string[] = [];
    for (let i = 0; i < 10_000; i++) out.push(queue.shift()!);
    for (const url of urls.slice(30_000)) queue.push(url);
    expect(queue.size).toBe(urls.length - 10_000);
    for (let i = 0; i < 40_000; i++) out.push(queue.shift()!);
    expect(queue.takeAll()).toEqual(urls.slice(50_000));
    expect(out).toEqual(urls.slice(0, 50_000));
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
    queue.push('');
    expect(queue.shift()).toBe('');
  });

  it('peeks at the next URLs across its buffers without handing them out', () => {
    const queue = new UrlQueue();
    const long = `http://example.org/${'z'.repeat(1024 * 1024)}`;
    const urls = [
      'http://example.org/a',
      'http://example.org/日本',
      long,
      'http://example.org/b',
      'http://example.org/c',
    ];
    for (const url of urls) queue.push(url);
    expect(queue.shift()).toBe(urls[0]);
    expect(queue.peek(3)).toEqual(urls.slice(1, 4));
    expect(queue.peek(10)).toEqual(urls.slice(1));
    expect(queue.size).toBe(4);
    queue.shift();
    queue.shift();
    // The first buffer is read through: the peek starts in the next one.
    expect(queue.peek(1)).toEqual([urls[3]]);
    expect(queue.takeAll()).toEqual(urls.slice(3));
    expect(queue.peek(5)).toEqual([]);
  });
});

describe('the first-in first-out queue', () => {
  it('peeks at the next items without handing them out', () => {
    const queue = new FifoQueue<number>();
    for (let i = 0; i < 5; i++) queue.push(i);
    queue.shift();
    expect(queue.peek(2)).toEqual([1, 2]);
    expect(queue.peek(9)).toEqual([1, 2, 3, 4]);
    expect(queue.shift()).toBe(1);
  });
});

describe('classify', () => {
  const ok = (
    status: number,
    hops: { url: string; status: number; location: string }[] = [],
    finalUrl = 'http://h/x',
  ) => classify({ ok: true, url: 'http://h/x', finalUrl, status, hops });

  it('maps statuses to reasons', () => {
    expect(ok(200)).toMatchObject({ reason: 'ok', httpStatus: 200, redirectsTo: null });
    expect(ok(404)).toMatchObject({ reason: 'not_found', httpStatus: 404, message: '404 Not Found' });
    expect(ok(410).reason).toBe('not_found');
    expect(ok(401).reason).toBe('forbidden');
    expect(ok(403).reason).toBe('forbidden');
    expect(ok(500).reason).toBe('server_error');
    expect(ok(503).reason).toBe('server_error');
    expect(ok(400).reason).toBe('server_error');
    expect(reasonForStatus(301)).toBe('redirect');
  });

  it('a redirect chain is a redirect to its final URL; a chain ending broken is broken', () => {
    const hops = [
      { url: 'http://h/x', status: 301, location: '/y' },
      { url: 'http://h/y', status: 302, location: '/z' },
    ];
    expect(ok(200, hops, 'http://h/z')).toMatchObject({
      reason: 'redirect',
      httpStatus: 301,
      redirectsTo: 'http://h/z',
    });
    expect(ok(404, hops, 'http://h/z')).toMatchObject({
      reason: 'not_found',
      httpStatus: 404,
      redirectsTo: 'http://h/z',
    });
    expect(ok(302)).toMatchObject({ reason: 'server_error' }); // a 3xx that led nowhere
  });

  it('failures: http_status 0 when nothing answered; rate limiting is never broken; a stop is unknown', () => {
    const fail = (
      failure: Parameters<typeof classify>[0] extends infer S ? (S extends { failure: infer F } ? F : never) : never,
      extra = {},
    ) => classify({ ok: false, url: 'http://h/x', finalUrl: 'http://h/x', failure, detail: '', hops: [], ...extra });
    expect(fail('timeout')).toMatchObject({ reason: 'server_error', httpStatus: 0 });
    expect(fail('refused')).toMatchObject({ reason: 'server_error', httpStatus: 0, message: 'connection refused' });
    expect(fail('dns')).toMatchObject({ reason: 'server_error', httpStatus: 0 });
    expect(fail('rate_limited', { status: 429 })).toMatchObject({ reason: 'skipped', httpStatus: 429 });
    expect(fail('aborted')).toMatchObject({ reason: 'unknown', httpStatus: 0 });
    expect(fail('redirect_loop', { hops: [{ url: 'http://h/x', status: 302, location: '/y' }] })).toMatchObject({
      reason: 'server_error',
      httpStatus: 302,
    });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('html extraction', () => {
  const base = 'http://h/dir/page.html';

  it('collects the text of the headings h1–h6 and definition terms in page order, not of scripts or other elements', () => {
    const x = extractHtml(
      `<title>T</title><h1>9.22. Window   <code>Functions</code></h1><p>text</p><h3><a href="#x">13.3.5.</a> Advisory Locks</h3>
       <dl><dt>wal_level (enum)</dt><dd>a setting</dd></dl><h2></h2><noscript><h2>hidden</h2></noscript><h6>Last</h6>`,
      { url: base },
    );
    expect(x.headings).toEqual([
      '9.22. Window Functions',
      '13.3.5. Advisory Locks',
      `${DEFINITION_TERM}wal_level (enum)`,
      'Last',
    ]);
    // A page whose terms are mostly links is a table of contents or a book index: its terms are no headings.
    const index = extractHtml(
      `<h1>Index</h1><dl><dt>jsonb</dt><dd><dl><dt>indexes on, <a href="json.html">jsonb Indexing</a></dt></dl></dd>
       <dt>JSONB, <a href="json.html">JSON Types</a></dt></dl>`,
      { url: base },
    );
    expect(index.headings).toEqual(['Index']);
    // A term's permalink to itself is no link to another page: a reference's terms stay terms.
    const reference = extractHtml(
      `<dl><dt id="envvar-PYTHONPATH">PYTHONPATH<a class="headerlink" href="#envvar-PYTHONPATH">¶</a></dt><dd>x</dd>
       <dt id="envvar-PYTHONHOME">PYTHONHOME<a href=" #envvar-PYTHONHOME">¶</a></dt><dd>y</dd></dl>`,
      { url: base },
    );
    expect(reference.headings).toEqual([`${DEFINITION_TERM}PYTHONPATH¶`, `${DEFINITION_TERM}PYTHONHOME¶`]);
    // Heading text is page text too.
    expect(x.text).toContain('Advisory Locks');
    expect(
      extractHtml(`${'<h2>x</h2>'.repeat(300)}<h2>${'long '.repeat(100)}</h2>`, { url: base }).headings,
    ).toHaveLength(200);
  });

  it('extracts title, text, language, description and every kind of link', () => {
    const x = extractHtml(
      `<!doctype html><html lang="de"><head><title> The  Title </title><meta name="description" content="About it">
       <link rel="stylesheet" href="/s.css"><link rel="next" href="next.html"><link rel="preconnect" href="https://cdn.example">
       <style>.x{}</style><script>var hidden = 1;</script><script src="app.js"></script></head>
       <body><h1>Head</h1><p>First<b>bold</b> para.</p><div>Block</div>
       <a href="a.html">a</a><area href="/area"><img src="i.png" srcset="i2.png 2x"><picture><source srcset="s.webp"></picture>
       <iframe src="/frame"></iframe><a href="mailto:x@y">m</a><a href="#f">f</a><a href="a.html#sec">dup</a>
       <a href="/nf" rel="nofollow">nf</a><noscript>no script text</noscript></body></html>`,
      { url: base },
    );
    expect(x.title).toBe('The Title');
    expect(x.lang).toBe('de');
    expect(x.description).toBe('About it');
    expect(x.text).toBe('Head Firstbold para. Block a mfdup nf');
    const links = Object.fromEntries(x.links.map((l) => [l.url, [l.element, l.walkable, l.nofollow]]));
    expect(links).toEqual({
      'http://h/s.css': ['link', false, false],
      'http://h/dir/next.html': ['link', true, false],
      'http://h/dir/app.js': ['script', false, false],
      'http://h/dir/a.html': ['a', true, false],
      'http://h/area': ['area', true, false],
      'http://h/dir/i.png': ['img', false, false],
      'http://h/dir/i2.png': ['img', false, false],
      'http://h/dir/s.webp': ['source', false, false],
      'http://h/frame': ['iframe', true, false],
      'http://h/nf': ['a', true, true],
    });
  });

  it('collapses every run of white space, of any kind, to one space', () => {
    const cases = [
      '',
      ' ',
      '  a  ',
      'a b',
      'a\n\tb',
      'a \n b',
      'a\u00a0b',
      'a\u00a0 \u2003b',
      '\ufeffa\r\nb\f',
      'a  b   c',
      ' \n',
    ];
    for (const c of cases) expect(collapseWhitespace(c), JSON.stringify(c)).toBe(c.replace(/\s+/g, ' ').trim());
    expect(collapseWhitespace('\n  Hello\t\tworld \n')).toBe('Hello world');
  });

  it('resolves against the first <base href>', () => {
    const x = extractHtml(
      '<head><base href="http://other/root/"><base href="/ignored/"></head><a href="x">x</a><img src="/abs.png">',
      { url: base },
    );
    expect(x.baseUrl).toBe('http://other/root/');
    expect(x.links.map((l) => l.url)).toEqual(['http://other/root/x', 'http://other/abs.png']);
  });

  it('reads robots meta (robots and our own name) and page meta JSON, type-checked', () => {
    const x = extractHtml(
      `<meta name="robots" content="NOINDEX"><meta name="svc-crawler" content="nofollow">
       <script id="svc-page-meta" type="application/json">{"title":"T","showInSearch":false,"tags":["a",1],"customFields":{"n":{"type":"number","value":3},"bad":{"type":"x","value":1}},"superwords":["s"]}</script>`,
      { url: base },
    );
    expect(x.robots).toEqual({ noindex: true, nofollow: true });
    expect(x.embeddedMeta).toEqual({
      title: 'T',
      showInSearch: false,
      customFields: { n: { type: 'number', value: 3 } },
      superwords: ['s'],
    });
    expect(
      extractHtml('<script id="svc-page-meta" type="application/json">{broken</script>', { url: base }).embeddedMeta,
    ).toBeNull();
  });

  it('honours content_selector and title_selector, falling back when nothing matches', () => {
    const html =
      '<title>Doc</title><nav>Menu items</nav><main><h1 class="t">Real title</h1><p>Main text</p><script>x()</script></main><footer>Foot</footer>';
    const x = extractHtml(html, { url: base, contentSelector: 'main', titleSelector: 'h1.t' });
    expect(x.text).toBe('Real title Main text');
    expect(x.title).toBe('Real title');
    const y = extractHtml(html, { url: base, contentSelector: 'article' });
    expect(y.text).toContain('Menu items');
    const target = (sel: string) => () => parseConfig({ targets: [{ host: 'a.example', content_selector: sel }] });
    expect(target('main > p')).not.toThrow();
    expect(target('main >>> ][')).toThrow(/targets\[0\]\.content_selector: must be a valid CSS selector/);
  });

  it('caps text and links per page', () => {
    const x = extractHtml(
      `<p>${'word '.repeat(1000)}</p>${Array.from({ length: 50 }, (_, i) => `<a href="/l${i}">l</a>`).join('')}`,
      { url: base, maxTextChars: 100, maxLinks: 10 },
    );
    expect(x.text.length).toBeLessThanOrEqual(100);
    expect(x.links).toHaveLength(10);
  });

  it('decodes the body by the Content-Type charset, a BOM or <meta charset>, across chunk boundaries', () => {
    const latin1 = Buffer.from('<title>Caf\xe9</title><p>\xe5\xe4\xf6</p>', 'latin1');
    const a = new HtmlSink('text/html; charset=ISO-8859-1', { url: base });
    a.write(latin1);
    a.end();
    expect(a.page!.title).toBe('Café');
    expect(a.page!.text).toBe('åäö');
    expect(sniffCharset(Buffer.from('<meta charset="windows-1252">'))).toBe('windows-1252');
    const b = new HtmlSink('text/html', { url: base });
    const doc = Buffer.from(`<meta charset="utf-8"><title>${'x'.repeat(1500)}ü€</title>`);
    for (let i = 0; i < doc.length; i += 7) b.write(doc.subarray(i, i + 7));
    b.end();
    expect(b.page!.title.endsWith('ü€')).toBe(true);
  });
});

describe('page meta', () => {
  it('prefers the page JSON and falls back to <title>, <html lang>, Last-Modified and the description', () => {
    const x = extractHtml('<html lang="en"><title>Plain</title><meta name="description" content="D">', {
      url: 'http://h/p',
    });
    const m = buildPageMeta({
      url: 'http://h/p',
      host: 'h',
      extracted: x,
      lastModified: 'Wed, 21 Oct 2026 07:28:00 GMT',
      targetTags: ['site'],
    });
    expect(m).toMatchObject({
      title: 'Plain',
      language: 'en',
      modified: '2026-10-21T07:28:00.000Z',
      created: null,
      showInSearch: true,
      description: 'D',
      tags: ['site', 'domain/h'],
    });
    const y = extractHtml(
      '<title>Plain</title><script id="svc-page-meta" type="application/json">{"title":"From JSON","language":"sv","modified":"2026-01-01T00:00:00Z","tags":["public"]}</script>',
      { url: 'http://h/p' },
    );
    expect(
      buildPageMeta({ url: 'http://h/p', host: 'h', extracted: y, lastModified: 'Wed, 21 Oct 2026 07:28:00 GMT' }),
    ).toMatchObject({
      title: 'From JSON',
      language: 'sv',
      modified: '2026-01-01T00:00:00.000Z',
      tags: ['public', 'domain/h'],
    });
    expect(
      buildPageMeta({ url: 'http://h/docs/intro.html', host: 'h', extracted: extractHtml('', { url: 'http://h/' }) })
        .title,
    ).toBe('intro.html');
  });
});

describe('robots', () => {
  it('parses robots.txt rules, Sitemap: lines and Crawl-delay for our agent', () => {
    const r = parseRobotsTxt(
      'http://h/robots.txt',
      'User-agent: *\nDisallow: /private/\nAllow: /private/open\n\nUser-agent: svc-crawler\nDisallow: /no-svc/\nCrawl-delay: 2\n\nSitemap: http://h/sm.xml\nSitemap: /relative.xml\n',
    );
    expect(r.isAllowed('http://h/no-svc/x')).toBe(false);
    // Our own group applies instead of *, as robots.txt groups do.
    expect(r.isAllowed('http://h/private/x')).toBe(true);
    expect(r.sitemaps).toEqual(['http://h/sm.xml', 'http://h/relative.xml']);
    expect(r.crawlDelayMs).toBe(2000);
    const star = parseRobotsTxt('http://h/robots.txt', 'User-agent: *\nDisallow: /private/\nAllow: /private/open\n');
    expect(star.isAllowed('http://h/private/x')).toBe(false);
    expect(star.isAllowed('http://h/private/open')).toBe(true);
    expect(star.isAllowed('http://other/private/x')).toBe(true);
  });

  it('parses robots directives from meta content and X-Robots-Tag', () => {
    expect(parseRobotsDirectives('noindex, nofollow')).toEqual({ noindex: true, nofollow: true });
    expect(parseRobotsDirectives('none')).toEqual({ noindex: true, nofollow: true });
    expect(parseRobotsDirectives('index, follow, max-snippet:-1')).toEqual({ noindex: false, nofollow: false });
    expect(xRobotsTag(['googlebot: noindex', 'nofollow'])).toEqual({ noindex: false, nofollow: true });
    expect(xRobotsTag('svc-crawler: noindex')).toEqual({ noindex: true, nofollow: false });
    expect(xRobotsTag('unavailable_after: 25 Jun 2010 15:00:00 PST')).toEqual({ noindex: false, nofollow: false });
  });
});

describe('sitemaps', () => {
  it('reads urlsets and indexes with lastmod, namespaced or not', () => {
    const s = parseSitemap(
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> http://h/a </loc><lastmod>2026-01-02T03:04:05+01:00</lastmod></url><url><loc>http://h/b?x=1&amp;y=2</loc></url></urlset>',
    );
    expect(s.urls).toEqual([
      { url: 'http://h/a', lastmod: '2026-01-02T02:04:05.000Z' },
      { url: 'http://h/b?x=1&y=2', lastmod: null },
    ]);
    const idx = parseSitemap(
      '<sm:sitemapindex xmlns:sm="x"><sm:sitemap><sm:loc>http://h/s1.xml</sm:loc><sm:lastmod>2026-01-01</sm:lastmod></sm:sitemap></sm:sitemapindex>',
    );
    expect(idx.sitemaps).toEqual([{ url: 'http://h/s1.xml', lastmod: '2026-01-01' }]);
  });

  it('tolerates malformed XML, reads text sitemaps, and caps entries', () => {
    // A document cut off mid-entry still yields what it named.
    expect(
      parseSitemap('<urlset><url><loc>http://h/ok</loc></url><url><loc>http://h/cut').urls.map((u) => u.url),
    ).toEqual(['http://h/ok', 'http://h/cut']);
    expect(parseSitemap('<html><body>not a sitemap</body></html>').urls).toEqual([]);
    expect(parseSitemap('http://h/one\nnot a url\nhttps://h/two\n').urls.map((u) => u.url)).toEqual([
      'http://h/one',
      'https://h/two',
    ]);
    const many = `<urlset>${Array.from({ length: 20 }, (_, i) => `<url><loc>http://h/${i}</loc></url>`).join('')}</urlset>`;
    expect(parseSitemap(many, 5).urls).toHaveLength(5);
    expect(normalizeLastmod('  ')).toBeNull();
    expect(normalizeLastmod('yesterday')).toBe('yesterday');
  });
});

describe('address policy', () => {
  it('classifies addresses', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.0.0.2', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.32.0.1', 'public'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link_local'],
      ['100.100.100.200', 'shared'],
      ['0.0.0.0', 'unspecified'],
      ['8.8.8.8', 'public'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['::', 'unspecified'],
      ['fd00:ec2::254', 'unique_local'],
      ['fe80::1%eth0', 'link_local'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:10.0.0.1', 'private'],
      ['64:ff9b::a9fe:a9fe', 'link_local'],
      ['2001:4860:4860::8888', 'public'],
      ['not-an-ip', 'invalid'],
    ];
    for (const [ip, cls] of cases) expect(classifyAddress(ip), ip).toBe(cls);
  });

  it('allows public addresses, and non-public ones only for a target host:port', () => {
    const p = createAddressPolicy([
      { host: '127.0.0.1', port: 8080 },
      { host: 'localhost', port: 9000 },
    ]);
    expect(p.check('example.org', 443, '93.184.216.34')).toBeNull();
    expect(p.check('127.0.0.1', 8080, '127.0.0.1')).toBeNull();
    expect(p.check('localhost', 9000, '::1')).toBeNull();
    expect(p.check('127.0.0.1', 8081, '127.0.0.1')).toMatch(/loopback/);
    expect(p.check('127.0.0.2', 8080, '127.0.0.2')).toMatch(/loopback/);
    expect(p.check('evil.example', 80, '169.254.169.254')).toMatch(/link-local/);
    expect(p.check('localhost', 8080, '127.0.0.1')).toBe(
      "localhost:8080 resolves to 127.0.0.1, a loopback address; svc does not fetch loopback, private, link-local or other non-public addresses unless they are a configured target's host:port",
    );
    expect(p.check('10.0.0.5', 80, '10.0.0.5')).toMatch(/^10\.0\.0\.5:80 is a private address; svc does not fetch/);
    expect(p.check('[::]', 80, '::')).toMatch(/^:::80 is an unspecified address;/);
    expect(addressClassText('shared')).toBe('a shared (carrier-grade NAT) address');
    expect(addressClassText('link_local')).toBe('a link-local address');
  });

  it('makes a link or redirect the policy refused an unknown problem of its page, naming the address and the rule', () => {
    // What the fetcher returns when the connector refused: no connection was made, so nothing answered.
    const why = createAddressPolicy([]).check('10.0.0.5', 80, '10.0.0.5')!;
    expect(
      classify({
        ok: false,
        url: 'http://10.0.0.5/',
        finalUrl: 'http://10.0.0.5/',
        failure: 'blocked',
        detail: why,
        hops: [],
      }),
    ).toEqual({
      reason: 'unknown',
      httpStatus: 0,
      message:
        "not checked: refused by the address policy: 10.0.0.5:80 is a private address; svc does not fetch loopback, private, link-local or other non-public addresses unless they are a configured target's host:port",
      redirectsTo: null,
    });
    const metadata = createAddressPolicy([]).check('metadata.example', 80, '169.254.169.254')!;
    const hops = [{ url: 'https://site.example/old', status: 301, location: 'http://metadata.example/latest' }];
    expect(
      classify({
        ok: false,
        url: hops[0]!.url,
        finalUrl: 'http://metadata.example/latest',
        failure: 'blocked',
        detail: metadata,
        hops,
      }),
    ).toEqual({
      reason: 'unknown',
      httpStatus: 301,
      message: `not checked: redirected to an address the policy refuses: https://site.example/old (301) → http://metadata.example/latest; metadata.example:80 resolves to 169.254.169.254, a link-local address; svc does not fetch loopback, private, link-local or other non-public addresses unless they are a configured target's host:port`,
      redirectsTo: 'http://metadata.example/latest',
    });
  });
});
