// Link-check fidelity in the crawler alone (memory sink, no SQLite): fragments, links in CSS, element and text of
// every link, bot blocks, and the cache of external results across crawls — against loopback sites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockMarker, classify } from '../../src/crawler/classify.js';
import { runCrawl, fragmentOutcome } from '../../src/crawler/engine/index.js';
import { cssLinks, stylesheetLinks } from '../../src/crawler/css.js';
import { extractHtml } from '../../src/crawler/html/extractor.js';
import { linkText } from '../../src/crawler/html/links.js';
import type { TargetConfig } from '../../src/model/config.js';
import { ConfigSchema, parseDuration } from '../../src/model/config.js';
import { silentLogger } from '../../src/lib/log.js';
import { MemoryStore } from '../support/memory-store.js';
import { html, send, startSite, target, type TestSite } from '../support/site.js';

function crawl(mem: MemoryStore, targets: TargetConfig[], crawlId = 1) {
  return runCrawl({
    sink: mem.sink(),
    reader: mem.reader(),
    crawlId,
    mode: 'full',
    targets,
    logger: silentLogger,
    threads: false,
    fetcher: { maxRetries: 2, maxRetryWaitMs: 50 },
  });
}

describe('pure parts', () => {
  it('finds url() and @import in CSS with the tokenizer, skipping comments and other strings', () => {
    const css = `@import "a.css" screen; @import url('b.css'); @IMPORT url(c.css);
      /* url(commented.png) */ .x { background: url( "d.png" ) no-repeat; content: "url(not-a-link.png)" }
      .y { background-image: url(e\\(1\\).png), url(data:image/png;base64,AAAA); font-family: "Some Font" }
      @font-face { src: url(f.woff2) format("woff2") }`;
    expect(cssLinks(css)).toEqual([
      { raw: 'a.css', import: true },
      { raw: 'b.css', import: true },
      { raw: 'c.css', import: true },
      { raw: 'd.png', import: false },
      { raw: 'e(1).png', import: false },
      { raw: 'data:image/png;base64,AAAA', import: false },
      { raw: 'f.woff2', import: false },
    ]);
    expect(
      stylesheetLinks(css, 'http://h/css/site.css').map(
        (l) => `${l.element} ${l.url}${l.stylesheet ? ' stylesheet' : ''}`,
      ),
    ).toEqual([
      'css http://h/css/a.css stylesheet',
      'css http://h/css/b.css stylesheet',
      'css http://h/css/c.css stylesheet',
      'css http://h/css/d.png',
      'css http://h/css/e(1).png',
      'css http://h/css/f.woff2',
    ]);
  });

  it('gives every link its element and text (anchor text, alt, aria-label, title), at most 100 characters', () => {
    const long = 'word '.repeat(40);
    const page = extractHtml(
      `<a href="/a">  Read   <b>the</b> docs </a>
       <a href="/img-link"><img src="/logo.png" alt="Company logo"></a>
       <a href="/aria" aria-label="Close dialog"></a>
       <a href="/long">${long}</a>
       <area href="/map" alt="North">
       <img src="/pic.jpg" alt="A picture">
       <iframe src="/frame" title="Video"></iframe>
       <script src="/app.js"></script>
       <a href="/a">second mention, other text</a>`,
      { url: 'http://h/' },
    );
    const by = new Map(page.links.map((l) => [l.url, `${l.element}|${l.text}`]));
    expect(by.get('http://h/a')).toBe('a|Read the docs');
    expect(by.get('http://h/img-link')).toBe('a|Company logo');
    expect(by.get('http://h/logo.png')).toBe('img|Company logo');
    expect(by.get('http://h/aria')).toBe('a|Close dialog');
    expect(by.get('http://h/long')).toBe(`a|${long.trim().slice(0, 100)}`);
    expect(by.get('http://h/map')).toBe('area|North');
    expect(by.get('http://h/pic.jpg')).toBe('img|A picture');
    expect(by.get('http://h/frame')).toBe('iframe|Video');
    expect(by.get('http://h/app.js')).toBe('script|');
    expect(linkText('é'.repeat(99) + '😀')).toHaveLength(99);
  });

  it('keeps fragments and collects ids only when asked, and finds links in <style> and style="" only with css', () => {
    const body = `<h2 id="intro">Intro</h2><a name="old-anchor"></a><a href="#intro">in page</a><a href="/doc#part%202">doc</a><a href="#">nothing</a>
      <style>.x { background: url(/bg.png) } @import "/more.css";</style><div style="background: URL('/inline.png')"></div><img src="/i.png#frag">`;
    const plain = extractHtml(body, { url: 'http://h/page' });
    expect(plain.anchors).toBeUndefined();
    expect(plain.links.map((l) => l.url)).toEqual(['http://h/doc', 'http://h/i.png']);
    const full = extractHtml(body, { url: 'http://h/page', anchors: true, css: true });
    expect(full.anchors).toEqual(['intro', 'old-anchor']);
    expect(
      full.links.map(
        (l) => `${l.element} ${l.url}${l.fragment ? `#${l.fragment}` : ''}${l.stylesheet ? ' stylesheet' : ''}`,
      ),
    ).toEqual([
      'a http://h/page#intro',
      'a http://h/doc#part%202',
      'css http://h/bg.png',
      'css http://h/more.css stylesheet',
      'css http://h/inline.png',
      'img http://h/i.png',
    ]);
  });

  it('decides a fragment link from its page', () => {
    const ok = { reason: 'ok' as const, httpStatus: 200, message: '200 OK', redirectsTo: null };
    expect(fragmentOutcome(ok, 'intro', new Set(['intro']), false).reason).toBe('ok');
    expect(fragmentOutcome(ok, 'part%202', new Set(['part 2']), false).reason).toBe('ok');
    expect(fragmentOutcome(ok, 'top', new Set(), false).reason).toBe('ok');
    expect(fragmentOutcome(ok, 'nowhere', new Set(['intro']), false)).toEqual({
      reason: 'not_found',
      httpStatus: 200,
      message: 'missing fragment #nowhere',
      redirectsTo: null,
    });
    expect(fragmentOutcome(ok, 'page=2', null, true).reason).toBe('ok');
    expect(fragmentOutcome(ok, 'x', null, false).reason).toBe('unknown');
    const gone = { reason: 'not_found' as const, httpStatus: 404, message: '404 Not Found', redirectsTo: null };
    expect(fragmentOutcome(gone, 'x', null, false)).toBe(gone);
  });

  it('classifies bot blocks: the reason stays, the message says blocked', () => {
    const c999 = classify({ ok: true, url: 'u', finalUrl: 'u', status: 999, hops: [], headers: {} });
    expect(c999).toMatchObject({ reason: 'server_error', httpStatus: 999, blocked: true });
    expect(c999.message).toMatch(/^blocked: HTTP 999/);
    const cf = classify({
      ok: true,
      url: 'u',
      finalUrl: 'u',
      status: 403,
      hops: [],
      headers: { 'cf-mitigated': 'challenge' },
    });
    expect(cf).toMatchObject({
      reason: 'forbidden',
      httpStatus: 403,
      blocked: true,
      message: 'blocked: 403 Forbidden (cf-mitigated: challenge)',
    });
    const plain403 = classify({ ok: true, url: 'u', finalUrl: 'u', status: 403, hops: [], headers: {} });
    expect(plain403.blocked).toBeUndefined();
    expect(plain403.message).toBe('403 Forbidden');
    expect(blockMarker(200, { 'cf-mitigated': 'challenge' })).toBeNull();
    expect(blockMarker(429, { 'x-amzn-waf-action': 'captcha' })).toBe('x-amzn-waf-action: captcha');
  });

  it('reads durations and fills targets from the top-level cache age, with clear errors', () => {
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('12h')).toBe(43_200_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('1 day')).toBeNull();
    expect(parseDuration('5')).toBeNull();
    const c = ConfigSchema.parse({
      external_cache_max_age: '12h',
      targets: [{ host: 'a.example' }, { host: 'b.example', external_cache_max_age: '30m' }],
    });
    expect(c.targets.map((t) => t.external_cache_max_age)).toEqual(['12h', '30m']);
    expect(c.targets[0]).toMatchObject({ check_fragments: false, check_css: true });
    expect(ConfigSchema.parse({ targets: [{ host: 'a.example' }] }).targets[0]!.external_cache_max_age).toBe('1d');
    const bad = ConfigSchema.safeParse({
      targets: [{ host: 'a.example', external_cache_max_age: 'soon', check_fragments: true }],
    });
    expect(bad.success).toBe(false);
    const issues = bad.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues).toContain(
      'targets.0.external_cache_max_age: must be a duration like "30m", "12h", "1d" or "2w" (or "0" for none)',
    );
    expect(issues.some((i) => i.startsWith('targets.0.check_fragments: needs track_links "all"'))).toBe(true);
  });
});

describe('a crawl of a site with fragments, CSS, blocks and external links', () => {
  let site: TestSite;
  let ext: TestSite;
  let mem: MemoryStore;
  let u: (path: string) => string;
  let first: Awaited<ReturnType<typeof crawl>>;

  beforeAll(async () => {
    ext = await startSite({ '/ok': html('fine'), '/broken': send(404, 'no') });
    site = await startSite({
      '/': html(
        `<h2 id="local">Local</h2>
         <a href="/doc#intro">Intro</a> <a href="/doc#named">Named</a> <a href="/doc#nowhere">Nowhere</a>
         <a href="#local">Local</a> <a href="#absent">Absent</a> <a href="/missing#x">Missing page</a> <a href="/file.pdf#page=2">PDF</a>
         <style>.a { background: url("/bg-ok.png") } .b { background: url(/bg-missing.png) }</style>
         <div style="background-image: url('/inline-missing.png')">x</div>
         <img src="/img-missing.png" alt="A missing picture">
         <a href="/blocked-999">Profile</a> <a href="/challenge">Shop</a> <a href="/challenge-429">Busy</a>
         <a href="${'EXT'}/ok">Ext ok</a> <a href="EXT/broken">Ext broken</a>`,
        { head: '<link rel="stylesheet" href="/style.css">' },
      ),
      '/doc': html('<h2 id="intro">Intro</h2><p><a name="named">old style</a></p>'),
      '/style.css': send(
        200,
        '@import "/imported.css";\n.a { background: url(/css-missing.png) }\n.b { background: url(\'/css-ok.png\') }',
        { 'content-type': 'text/css' },
      ),
      '/imported.css': send(200, '.c { background: url(imported-missing.png) }', {
        'content-type': 'text/css; charset=utf-8',
      }),
      '/bg-ok.png': send(200, 'png', { 'content-type': 'image/png' }),
      '/css-ok.png': send(200, 'png', { 'content-type': 'image/png' }),
      '/file.pdf': send(200, '%PDF-1.4', { 'content-type': 'application/pdf' }),
      '/blocked-999': send(999, 'no bots'),
      '/challenge': send(403, '<title>Just a moment...</title>', { 'cf-mitigated': 'challenge' }),
      '/challenge-429': send(429, 'slow', { 'cf-mitigated': 'challenge', 'retry-after': '1' }),
    });
    const home = site.routes.get('/')!;
    site.route('/', (req, res, url) => {
      // The external site's origin is only known now.
      const write = res.end.bind(res);
      res.end = ((chunk: string) => write(chunk.replaceAll('EXT', ext.origin))) as typeof res.end;
      return home(req, res, url);
    });
    u = (p) => `${site.origin}${p}`;
    mem = new MemoryStore();
    first = await crawl(mem, [target({ host: site.host, check_fragments: true })]);
  });
  afterAll(async () => {
    await site?.close();
    await ext?.close();
  });

  const outcome = (url: string) => mem.outcomes.get(url);

  it('checks fragments against ids and <a name>, on other pages and the same page', () => {
    expect(outcome(u('/doc#intro'))).toMatchObject({ reason: 'ok', httpStatus: 200 });
    expect(outcome(u('/doc#named'))).toMatchObject({ reason: 'ok' });
    expect(outcome(u('/doc#nowhere'))).toMatchObject({
      reason: 'not_found',
      httpStatus: 200,
      message: 'missing fragment #nowhere',
    });
    expect(outcome(u('/#local'))).toMatchObject({ reason: 'ok' });
    expect(outcome(u('/#absent'))).toMatchObject({
      reason: 'not_found',
      httpStatus: 200,
      message: 'missing fragment #absent',
    });
    // A missing page: the fragment link is broken as its page is.
    expect(outcome(u('/missing#x'))).toMatchObject({ reason: 'not_found', httpStatus: 404 });
    // Not HTML: nothing to look for.
    expect(outcome(u('/file.pdf#page=2'))).toMatchObject({ reason: 'ok' });
    // The pages themselves get their own outcomes as before.
    expect(outcome(u('/doc'))).toMatchObject({ reason: 'ok' });
    const links = mem.linksOf(u('/'));
    expect(links.get(u('/doc#nowhere'))).toEqual({ element: 'a', text: 'Nowhere' });
    expect(links.has(u('/doc'))).toBe(false);
  });

  it('checks links in linked stylesheets (and their @imports), <style> blocks and style attributes', () => {
    expect(site.hitCount('/style.css', 'GET')).toBe(1);
    expect(site.hitCount('/imported.css', 'GET')).toBe(1);
    expect(outcome(u('/bg-ok.png'))).toMatchObject({ reason: 'ok' });
    expect(outcome(u('/bg-missing.png'))).toMatchObject({ reason: 'not_found', httpStatus: 404 });
    expect(outcome(u('/inline-missing.png'))).toMatchObject({ reason: 'not_found' });
    expect(outcome(u('/css-missing.png'))).toMatchObject({ reason: 'not_found' });
    expect(outcome(u('/css-ok.png'))).toMatchObject({ reason: 'ok' });
    expect(outcome(u('/imported-missing.png'))).toMatchObject({ reason: 'not_found' });
    const home = mem.linksOf(u('/'));
    expect(home.get(u('/bg-missing.png'))).toEqual({ element: 'css', text: '' });
    expect(home.get(u('/inline-missing.png'))).toEqual({ element: 'css', text: '' });
    expect(home.get(u('/style.css'))).toEqual({ element: 'link', text: '' });
    expect(home.get(u('/img-missing.png'))).toEqual({ element: 'img', text: 'A missing picture' });
    // The stylesheets are documents with links, never searchable.
    const css = mem.pages.get(u('/style.css'))!;
    expect(css.indexed).toBe(false);
    expect(mem.linksOf(u('/style.css')).get(u('/css-missing.png'))).toEqual({ element: 'css', text: '' });
    expect([...mem.linksOf(u('/imported.css')).keys()]).toEqual([u('/imported-missing.png')]);
  });

  it('marks bot blocks and does not retry a challenge', () => {
    expect(outcome(u('/blocked-999'))).toMatchObject({ reason: 'server_error', httpStatus: 999, blocked: true });
    expect(outcome(u('/blocked-999'))!.message).toMatch(/^blocked: /);
    expect(outcome(u('/challenge'))).toMatchObject({
      reason: 'forbidden',
      httpStatus: 403,
      blocked: true,
      message: 'blocked: 403 Forbidden (cf-mitigated: challenge)',
    });
    expect(outcome(u('/challenge-429'))).toMatchObject({ reason: 'server_error', httpStatus: 429, blocked: true });
    expect(site.hitCount('/challenge-429')).toBe(1);
    expect(outcome(u('/doc'))!.blocked).toBe(false);
    // Counted as broken: 2 missing fragments, /missing and /missing#x, 5 missing images (img, CSS), the broken
    // external link; not the 3 blocks.
    expect(first.stats.errors).toBe(10);
  });

  it('reuses ok external results on the next crawl and checks broken ones again', async () => {
    expect(outcome(`${ext.origin}/ok`)).toMatchObject({ reason: 'ok' });
    expect(outcome(`${ext.origin}/broken`)).toMatchObject({ reason: 'not_found' });
    expect(ext.hitCount('/ok')).toBe(1);
    expect(ext.hitCount('/broken')).toBe(1);
    const okCheckedAt = outcome(`${ext.origin}/ok`)!.checkedAt;
    await crawl(mem, [target({ host: site.host, check_fragments: true })], 2);
    expect(ext.hitCount('/ok')).toBe(1);
    expect(ext.hitCount('/broken')).toBe(2);
    expect(outcome(`${ext.origin}/ok`)!.checkedAt).toBe(okCheckedAt);
    // With the cache off, every external link is checked again.
    await crawl(mem, [target({ host: site.host, check_fragments: true, external_cache_max_age: '0' })], 3);
    expect(ext.hitCount('/ok')).toBe(2);
    expect(ext.hitCount('/broken')).toBe(3);
  });

  it('with check_css and check_fragments off, reads no stylesheet and keeps no fragment', async () => {
    const before = site.hitCount('/style.css', 'GET');
    const plain = new MemoryStore();
    await crawl(plain, [target({ host: site.host, check_css: false })]);
    expect(site.hitCount('/style.css', 'GET')).toBe(before);
    const links = plain.linksOf(u('/'));
    expect(links.has(u('/doc'))).toBe(true);
    expect([...links.keys()].some((l) => l.includes('#'))).toBe(false);
    expect(links.has(u('/bg-missing.png'))).toBe(false);
    expect(plain.pages.get(u('/'))!.anchors).toBeNull();
  });
});
