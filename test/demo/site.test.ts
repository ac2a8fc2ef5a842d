import { parseDocument } from 'htmlparser2';
import { selectAll as cssAll, selectOne as cssOne } from 'css-select';
import type { Element } from 'domhandler';
import { getAttributeValue, textContent } from 'domutils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPosts, demoPostsFile } from '../../src/demo/content.js';
import { makePdf } from '../../src/demo/pdf.js';
import { CALENDAR_START, DEMO_FAULTS } from '../../src/demo/routes.js';
import { isLoopbackHost, startDemoSite, type DemoSite } from '../../src/demo/site.js';
import { pageMetaOfPost, parsePostsFile } from '../../src/cms/posts.js';

let site: DemoSite;

beforeAll(async () => {
  site = await startDemoSite();
});
afterAll(async () => {
  await site?.close();
});

const get = (path: string, init: RequestInit = {}) =>
  fetch(new URL(path, site.origin), { redirect: 'manual', ...init });
const xml = (text: string) => parseDocument(text, { xmlMode: true });
type Node = Parameters<typeof textContent>[0];
const selectAll = (sel: string, root: Node) => cssAll(sel, root as never) as unknown as Element[];
const selectOne = (sel: string, root: Node) => cssOne(sel, root as never) as unknown as Element | null;

describe('demo content', () => {
  it('is a valid posts file of about 40 posts and pages: statuses, authors, languages, terms', () => {
    const posts = parsePostsFile(demoPostsFile('http://127.0.0.1:9'));
    expect(posts.length).toBeGreaterThanOrEqual(40);
    const statuses = new Set(posts.map((p) => p.status));
    for (const s of ['publish', 'private', 'draft']) expect(statuses).toContain(s);
    expect(new Set(posts.map((p) => p.author)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(posts.map((p) => p.language))).toEqual(new Set(['en', 'sv']));
    expect(new Set(posts.map((p) => p.type))).toEqual(new Set(['post', 'page']));
    expect(posts.some((p) => (p.terms.category ?? []).length && (p.terms.post_tag ?? []).length)).toBe(true);
    expect(posts.some((p) => !p.show_in_search)).toBe(true);
    for (const p of posts) {
      expect(p.url.startsWith('http://127.0.0.1:9/')).toBe(true);
      expect(p.content.length).toBeGreaterThan(40);
    }
  });

  it('is the same every time (hand-written, nothing random)', () => {
    expect(demoPostsFile('http://127.0.0.1:9')).toBe(demoPostsFile('http://127.0.0.1:9'));
  });
});

describe('demo site', () => {
  it('serves robots.txt with a Disallow and a Sitemap line', async () => {
    const res = await get('/robots.txt');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^User-agent: \*$/m);
    expect(text).toMatch(/^Disallow: \/members\/$/m);
    expect(text).toContain(`Sitemap: ${site.origin}/sitemap.xml`);
  });

  it('serves a sitemap index whose sitemaps list every public post with its lastmod, and nothing private', async () => {
    const index = xml(await (await get('/sitemap.xml')).text());
    const root = index.children.find((n) => (n as Element).name === 'sitemapindex') as Element;
    expect(root.attribs.xmlns).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');
    const children = selectAll('sitemap', index);
    expect(children).toHaveLength(2);
    const listed = new Map<string, string>();
    for (const s of children) {
      expect(textContent(selectOne('lastmod', s)!)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      const loc = textContent(selectOne('loc', s)!);
      expect(loc.startsWith(site.origin + '/')).toBe(true);
      const res = await fetch(loc);
      expect(res.headers.get('content-type')).toContain('xml');
      const doc = xml(await res.text());
      expect(doc.children.some((n) => (n as Element).name === 'urlset')).toBe(true);
      for (const u of selectAll('url', doc)) {
        const lastmod = selectOne('lastmod', u);
        expect(lastmod).not.toBeNull();
        listed.set(textContent(selectOne('loc', u)!), textContent(lastmod!));
      }
    }
    for (const { post } of site.posts) {
      if (post.status === 'publish') expect(listed.get(post.url), post.url).toBe(post.modified);
      else expect(listed.has(post.url), post.url).toBe(false);
    }
    for (const loc of listed.keys()) expect((await fetch(loc, { method: 'HEAD' })).status, loc).toBe(200);
  });

  it('renders each public post with the page-meta script of the host implementation', async () => {
    const published = site.posts.filter((d) => d.post.status === 'publish');
    expect(published.length).toBeGreaterThan(30);
    for (const d of published) {
      const res = await get(d.path);
      expect(res.status, d.path).toBe(200);
      expect(res.headers.get('last-modified')).toBe(new Date(d.post.modified!).toUTCString());
      const doc = parseDocument(await res.text());
      const script = selectOne('script#svc-page-meta', doc);
      expect(script, d.path).not.toBeNull();
      expect(getAttributeValue(script!, 'type')).toBe('application/json');
      expect(JSON.parse(textContent(script!))).toEqual(pageMetaOfPost(d.post));
      expect(textContent(selectOne('h1', doc)!)).toBe(d.post.title);
      expect(getAttributeValue(selectOne('html', doc)!, 'lang')).toBe(d.post.language);
    }
  });

  it('does not serve private, draft or pending posts', async () => {
    const hidden = site.posts.filter((d) => d.post.status !== 'publish');
    expect(hidden.length).toBeGreaterThanOrEqual(5);
    for (const d of hidden) {
      const res = await get(d.path);
      expect(res.status, d.path).toBe(404);
      expect(await res.text()).not.toContain('svc-page-meta');
    }
  });

  it('answers each known fault with its status', async () => {
    for (const path of DEMO_FAULTS.not_found) expect([404, 410], path).toContain((await get(path)).status);
    expect((await get('/events/midsummer-2023/')).status).toBe(410);
    expect((await get('/board/archive/')).status).toBe(403);
    const intranet = await get('/intranet/');
    expect(intranet.status).toBe(401);
    expect(intranet.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await get('/events/booking/')).status).toBe(500);
    expect((await get('/members/login/')).status).toBe(200);
  });

  it('redirects, including a chain that ends at a missing page', async () => {
    const hops = async (path: string) => {
      const chain: number[] = [];
      let url = new URL(path, site.origin).href;
      for (let i = 0; i < 5; i++) {
        const res = await fetch(url, { redirect: 'manual' });
        chain.push(res.status);
        const loc = res.headers.get('location');
        if (!loc) return { chain, final: url };
        url = new URL(loc, url).href;
      }
      throw new Error('too many hops');
    };
    expect(await hops('/join/')).toEqual({ chain: [301, 200], final: `${site.origin}/membership/` });
    expect(await hops('/blog/')).toEqual({ chain: [302, 200], final: `${site.origin}/news/` });
    expect(await hops('/sv/bli-medlem/')).toEqual({ chain: [301, 200], final: `${site.origin}/sv/medlemskap/` });
    expect(await hops('/2019/spring-fair/')).toEqual({
      chain: [301, 302, 404],
      final: `${site.origin}/archive/spring-fair-2019/`,
    });
    for (const [from, to] of Object.entries({ ...DEMO_FAULTS.redirect, ...DEMO_FAULTS.redirect_to_missing }))
      expect((await hops(from)).final).toBe(new URL(to, site.origin).href);
  });

  it('serves a second loopback host that it links to, with one missing page', async () => {
    expect(site.partnerPort).not.toBe(site.port);
    expect((await fetch(`${site.partnerOrigin}/`)).status).toBe(200);
    expect((await fetch(`${site.partnerOrigin}/allotment-guide/`)).status).toBe(200);
    expect((await fetch(`${site.partnerOrigin}/old-grants/`)).status).toBe(404);
    const about = await (await get('/about/')).text();
    expect(about).toContain(`href="${site.partnerOrigin}/old-grants/"`);
  });

  it('serves PDFs that are valid, with a correct cross-reference table, and the same bytes every time', async () => {
    for (const path of ['/files/garden-rules.pdf', '/files/tradgardsregler.pdf', '/files/annual-report-2025.pdf']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      const buf = Buffer.from(await res.arrayBuffer());
      expect(buf.equals(Buffer.from(await (await get(path)).arrayBuffer()))).toBe(true);
      checkPdf(buf);
    }
    checkPdf(makePdf('Parens ( and ) and \\ backslash', ['åäö ÅÄÖ – a dash']));
  });

  it('has an endless calendar (noindex) for max_pages to cut', async () => {
    const doc = parseDocument(await (await get(CALENDAR_START)).text());
    expect(getAttributeValue(selectOne('meta[name=robots]', doc)!, 'content')).toBe('noindex, follow');
    expect(getAttributeValue(selectOne('a[rel=next]', doc)!, 'href')).toBe('/events/calendar/2026/05/');
    expect(getAttributeValue(selectOne('a[rel=prev]', doc)!, 'href')).toBe('/events/calendar/2026/03/');
    expect(textContent(doc)).toContain('Composting workshop');
    expect((await get('/events/calendar/2999/12/')).status).toBe(200);
    expect((await get('/events/calendar/2026/13/')).status).toBe(404);
  });

  it('links only to pages that work, except the known faults', async () => {
    // Walk every same-host page reachable from / (the calendar only one step), check every link once.
    const faults = new Set<string>(
      [
        ...DEMO_FAULTS.not_found,
        ...DEMO_FAULTS.forbidden,
        ...DEMO_FAULTS.server_error,
        ...Object.keys(DEMO_FAULTS.redirect),
        ...Object.keys(DEMO_FAULTS.redirect_to_missing),
        ...DEMO_FAULTS.partner_not_found.map((p) => new URL(p, site.partnerOrigin).href),
      ].map((p) => new URL(p, site.origin).href),
    );
    const seen = new Set<string>();
    const queue = [`${site.origin}/`];
    const broken = new Set<string>();
    const linked = new Set<string>();
    while (queue.length) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const res = await fetch(url, { redirect: 'manual' });
      if (res.status !== 200) {
        broken.add(url);
        continue;
      }
      if (!(res.headers.get('content-type') ?? '').startsWith('text/html')) continue;
      const doc = parseDocument(await res.text());
      for (const el of selectAll('a[href], img[src], link[href]', doc)) {
        const raw = el.attribs.href ?? el.attribs.src!;
        if (/^(mailto|tel):/.test(raw)) continue;
        const abs = new URL(raw, url);
        abs.hash = '';
        linked.add(abs.href);
        if (abs.pathname.startsWith('/members/')) continue; // disallowed by robots.txt
        if (abs.origin !== site.origin) {
          if (!seen.has(abs.href)) {
            seen.add(abs.href);
            if ((await fetch(abs, { method: 'HEAD' })).status !== 200) broken.add(abs.href);
          }
          continue;
        }
        if (abs.pathname.startsWith('/events/calendar/') && !url.endsWith('/events/')) continue;
        queue.push(abs.href);
      }
    }
    expect([...broken].sort()).toEqual([...faults].sort());
    expect(linked.has(`${site.origin}/members/login/`)).toBe(true);
    expect(seen.size).toBeGreaterThan(55);
  });

  it('answers HEAD like GET without a body, and refuses other methods', async () => {
    const head = await get('/about/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await get('/about/', { method: 'POST' })).status).toBe(405);
  });

  it('listens on loopback only', async () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('127.0.0.2')).toBe(true);
    expect(isLoopbackHost('::1')).toBe(true);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
    expect(isLoopbackHost('192.168.1.10')).toBe(false);
    await expect(startDemoSite({ host: '0.0.0.0' })).rejects.toThrow(/not a loopback address/);
  });

  it('builds its posts for the origin it is served on', () => {
    expect(site.posts.map((d) => d.post)).toEqual(demoPosts(site.origin).map((d) => d.post));
    expect(site.posts.find((d) => d.path === '/')!.post.url).toBe(`${site.origin}/`);
  });
});

/** Structure of a PDF: header, trailer, and every xref offset pointing at its object. */
function checkPdf(buf: Buffer): void {
  const text = buf.toString('latin1');
  expect(text.startsWith('%PDF-1.')).toBe(true);
  expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
  const startxref = Number(/startxref\n(\d+)\n%%EOF/.exec(text)![1]);
  expect(text.slice(startxref, startxref + 4)).toBe('xref');
  const [, count] = /^xref\n0 (\d+)\n/.exec(text.slice(startxref))!;
  const entries = text
    .slice(startxref)
    .split('\n')
    .slice(2, 2 + Number(count));
  entries.slice(1).forEach((e, i) => {
    expect(e).toMatch(/^\d{10} 00000 n $/);
    const off = Number(e.slice(0, 10));
    expect(text.slice(off, off + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`);
  });
  const len = Number(/\/Length (\d+)/.exec(text)![1]);
  const streamAt = text.indexOf('stream\n') + 'stream\n'.length;
  expect(text.slice(streamAt + len, streamAt + len + '\nendstream'.length)).toBe('\nendstream');
}
