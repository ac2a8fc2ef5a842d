// Reading the site (svc/get-page, svc/list-pages, search hits' sections) over a real crawl of a generated site with
// headings, lists, code, tables and links, on SQLite and on PostgreSQL: the Markdown is faithful to the page,
// chunks concatenate to the whole, a section reads alone, hit sections name anchors the page has, listing pages
// holds across a crawl that adds pages, a subscriber reads nothing search hides, and bad input is a clear error.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';
import { AbilityError } from '../../src/abilities/types.js';
import type { Role, User } from '../../src/model/users.js';
import { addRoleUsers, makeAppOn, makeHost, ONE_HOST, startFacade } from '../support/app.js';
import { DIALECTS, storeKit, type StoreKit } from '../support/stores.js';

const GUIDE = `<!doctype html><html lang="en"><head><title>Install guide</title></head><body>
<nav><a href="/">Home</a></nav>
<h1 id="top">Install guide</h1>
<p>Read this <a href="/other">other page</a> first, then <code>make</code> it.</p>
<section id="requirements"><h2>Requirements</h2>
<ul><li>A <strong>compiler</strong></li><li>Two cores<ul><li>or more</li></ul></li></ul>
<ol><li>Download</li><li>Unpack</li></ol>
</section>
<h2 id="build">Build steps</h2>
<pre><code>./configure --prefix=/opt
make install</code></pre>
<table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>--prefix</td><td>Where | to install</td></tr></table>
<h3>Troubleshooting</h3>
<p>When the zebra compiler fails, read the zebra log.</p>
<h2 id="license">License</h2><p>MIT.</p>
</body></html>`;

const EXPECTED = `[Home](SITE/)

# Install guide

Read this [other page](SITE/other) first, then \`make\` it.

## Requirements

- A compiler
- Two cores
   - or more

1. Download
2. Unpack

## Build steps

\`\`\`
./configure --prefix=/opt
make install
\`\`\`

| Flag | Meaning |
| --- | --- |
| --prefix | Where \\| to install |

### Troubleshooting

When the zebra compiler fails, read the zebra log.

## License

MIT.`;

const page = (title: string, body: string, head = '') =>
  `<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body>${body}</body></html>`;

let app: App;
let host: AbilityHost;
let users: Record<Role, { user: User; token: string }>;
let server: Server | null = null;
let site = '';
/** Extra pages the site serves (a later crawl finds more). */
const extra = new Map<string, string>();

afterEach(async () => {
  host?.close();
  await app?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
  extra.clear();
});

async function start(kit: StoreKit): Promise<void> {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const pages: Record<string, string> = {
      '/': page(
        'Home',
        `<h1>Home</h1><a href="/guide">guide</a> <a href="/other">other</a> <a href="/hidden">hidden</a> <a href="/gone1">1</a> <a href="/gone2">2</a> <a href="/gone3">3</a> ${[...extra.keys()].map((p) => `<a href="${p}">${p}</a>`).join(' ')}`,
      ),
      '/guide': GUIDE,
      '/other': page('Other', '<h1>Other</h1><p>Nothing about a zebra here.</p>'),
      '/hidden': page('Hidden', '<h1>Hidden</h1><p>Secret zebra plans.</p>', '<meta name="robots" content="noindex">'),
      ...Object.fromEntries(extra),
    };
    const body = pages[path];
    if (!body) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const hostPort = `127.0.0.1:${(server!.address() as AddressInfo).port}`;
  site = `http://${hostPort}`;
  app = await makeAppOn(
    kit,
    {
      targets: [
        {
          host: hostPort,
          scheme: 'http',
          track_links: 'all',
          walk_links: true,
          use_sitemap: false,
          respect_robots_txt: false,
        },
      ],
    },
    ONE_HOST,
  );
  users = await addRoleUsers(app);
  ({ host } = await makeHost(app));
  await crawl();
}

async function crawl(): Promise<void> {
  const rec = await app.backend.startCrawl({ mode: 'full' });
  expect((await app.backend.waitForCrawl(rec.id)).status).toBe('completed');
}

const run = <T = Record<string, unknown>>(name: string, input: unknown, role: Role = 'administrator') =>
  host.registry.execute(name, input, { user: users[role].user }) as Promise<T>;

async function errorOf(p: Promise<unknown>): Promise<AbilityError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AbilityError) return e;
    throw e;
  }
  throw new Error('expected an AbilityError');
}

interface Content {
  markdown: string;
  next_start_index: number | null;
  total_length: number;
  outline: { level: number; heading: string; anchor: string }[];
  section: string | null;
  in_search: boolean;
}

describe.each(DIALECTS)('reading the site on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('reads a page as Markdown faithful to it, in chunks that make the whole, and by section', async () => {
    await start(kit);
    const whole = await run<Content & Record<string, unknown>>('svc/get-page', { url: `${site}/guide` }, 'subscriber');
    expect(whole.markdown).toBe(EXPECTED.replaceAll('SITE', site));
    expect(whole).toMatchObject({
      url: `${site}/guide`,
      title: 'Install guide',
      lang: 'en',
      last_crawled: expect.any(String),
      in_search: true,
      section: null,
      start_index: 0,
      next_start_index: null,
      total_length: whole.markdown.length,
    });
    expect(whole.outline).toEqual([
      { level: 1, heading: 'Install guide', anchor: 'top' },
      { level: 2, heading: 'Requirements', anchor: 'requirements' },
      { level: 2, heading: 'Build steps', anchor: 'build' },
      { level: 3, heading: 'Troubleshooting', anchor: 'troubleshooting' },
      { level: 2, heading: 'License', anchor: 'license' },
    ]);
    // Chunks of 100 characters concatenate to the whole.
    let text = '';
    let at: number | null = 0;
    let calls = 0;
    while (at !== null) {
      const c: Content = await run<Content>('svc/get-page', { url: `${site}/guide`, start_index: at, max_length: 100 });
      expect(c.markdown.length).toBeLessThanOrEqual(100);
      text += c.markdown;
      at = c.next_start_index;
      calls++;
    }
    expect(text).toBe(whole.markdown);
    expect(calls).toBe(Math.ceil(whole.markdown.length / 100));
    // One section: from its heading to the next of its level, subsections included.
    const build = await run<Content>('svc/get-page', { url: `${site}/guide#ignored`, section: '#build' });
    expect(build.section).toBe('build');
    expect(build.markdown).toMatch(/^## Build steps\n/);
    expect(build.markdown).toContain('### Troubleshooting');
    expect(build.markdown).not.toContain('License');
    expect(build.total_length).toBe(build.markdown.length);
    // Past the end: an empty chunk, nothing next.
    const past = await run<Content>('svc/get-page', { url: `${site}/guide`, start_index: 100_000 });
    expect(past).toMatchObject({ markdown: '', next_start_index: null });
  });

  it('names the best section of each search hit, by an anchor the page has', async () => {
    await start(kit);
    const found = await run<{
      results: { hits: { url: string; section: { heading: string; anchor: string } | null }[] };
    }>('svc/search', { terms: 'zebra' }, 'subscriber');
    const guide = found.results.hits.find((h) => h.url === `${site}/guide`);
    expect(guide?.section).toEqual({ heading: 'Troubleshooting', anchor: 'troubleshooting' });
    const other = found.results.hits.find((h) => h.url === `${site}/other`);
    expect(other?.section).toEqual({ heading: 'Other', anchor: 'other' });
    for (const hit of found.results.hits) {
      if (!hit.section) continue;
      const read = await run<Content>('svc/get-page', { url: hit.url, section: hit.section.anchor }, 'subscriber');
      expect(read.markdown).toContain(hit.section.heading);
    }
    // The ids given by the page itself are real anchors of it.
    const requirements = await run<{ results: { hits: { url: string; section: { anchor: string } | null }[] } }>(
      'svc/search',
      { terms: 'compiler cores' },
    );
    expect(requirements.results.hits.find((h) => h.url === `${site}/guide`)?.section?.anchor).toBe('requirements');
    expect(GUIDE).toContain('id="requirements"');
  });

  it('lists stored pages by prefix with a cursor that holds across a crawl adding pages', async () => {
    await start(kit);
    const first = await run<{
      pages: { url: string; in_search: boolean }[];
      total: number;
      next_cursor: string | null;
    }>('svc/list-pages', { limit: 2 });
    expect(first.total).toBe(4);
    expect(first.pages.map((p) => p.url)).toEqual([`${site}/`, `${site}/guide`]);
    expect(first.next_cursor).toEqual(expect.any(String));
    extra.set('/zoo', page('Zoo', '<h1>Zoo</h1>'));
    extra.set('/alpha', page('Alpha', '<h1>Alpha</h1>'));
    await crawl();
    const urls = first.pages.map((p) => p.url);
    let cursor = first.next_cursor;
    let total = 0;
    while (cursor) {
      const next = await run<{ pages: { url: string }[]; total: number; next_cursor: string | null }>(
        'svc/list-pages',
        {
          limit: 2,
          cursor,
        },
      );
      urls.push(...next.pages.map((p) => p.url));
      total = next.total;
      cursor = next.next_cursor;
    }
    // Pages added before the cursor's place are not repeated, those after it are listed; the total counts them all.
    expect(total).toBe(6);
    expect(urls).toEqual([`${site}/`, `${site}/guide`, `${site}/hidden`, `${site}/other`, `${site}/zoo`]);
    expect(new Set(urls).size).toBe(urls.length);
    const under = await run<{ pages: { url: string }[]; total: number }>('svc/list-pages', { prefix: '/gu' });
    expect(under).toMatchObject({ total: 1, pages: [{ url: `${site}/guide` }], next_cursor: null });
    const byUrl = await run<{ total: number }>('svc/list-pages', { prefix: `${site}/z` });
    expect(byUrl.total).toBe(1);
  });

  it('denies a subscriber what search hides, and answers bad input with clear errors', async () => {
    await start(kit);
    const admin = await run<Content>('svc/get-page', { url: `${site}/hidden` });
    expect(admin).toMatchObject({ in_search: false, markdown: '# Hidden\n\nSecret zebra plans.' });
    const denied = await errorOf(run('svc/get-page', { url: `${site}/hidden` }, 'subscriber'));
    const missing = await errorOf(run('svc/get-page', { url: `${site}/nope` }, 'subscriber'));
    expect(denied.status).toBe(404);
    expect(denied.message.replace('/hidden', '/nope')).toBe(missing.message);
    expect(missing.message).toMatch(/svc\/search.*svc\/list-pages/);
    const listed = await run<{ pages: { url: string }[]; total: number }>('svc/list-pages', {}, 'subscriber');
    expect(listed.pages.map((p) => p.url)).not.toContain(`${site}/hidden`);
    expect(listed.total).toBe(3);

    const other = await errorOf(run('svc/get-page', { url: 'https://elsewhere.example/guide' }, 'subscriber'));
    expect(other.status).toBe(400);
    expect(other.message).toMatch(/url: host elsewhere\.example is not a configured target/);
    const section = await errorOf(run('svc/get-page', { url: `${site}/guide`, section: 'nope' }));
    expect(section.message).toMatch(
      /section: the page has no section "nope"; its anchors: top, requirements, build, troubleshooting, license/,
    );
    const bad = await errorOf(run('svc/list-pages', { cursor: 'not-a-cursor' }));
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/cursor: is not a cursor svc gave/);
    const { next_cursor } = await run<{ next_cursor: string }>('svc/list-pages', { limit: 1 });
    const foreign = await errorOf(run('svc/list-pages', { limit: 1, prefix: '/g', cursor: next_cursor }));
    expect(foreign.message).toMatch(/cursor: belongs to another listing/);
    const subCursor = await errorOf(run('svc/list-pages', { limit: 1, cursor: next_cursor }, 'subscriber'));
    expect(subCursor.message).toMatch(/cursor: belongs to another listing/);
    const big = await errorOf(run('svc/get-page', { url: `${site}/guide`, max_length: 60_000 }));
    expect(big.message).toMatch(/max_length: must be an integer from 100 to 50000/);
  });

  it('answers the same over /v1, with clear 4xx errors, and pages the link report by cursor', async () => {
    await start(kit);
    const facade = await startFacade(app);
    try {
      const get = async (path: string) => {
        const res = await fetch(`${facade.api}${path}`, { headers: { authorization: `Bearer ${facade.key}` } });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const q = (o: Record<string, string | number>) =>
        new URLSearchParams(Object.entries(o).map(([k, v]): [string, string] => [k, String(v)]));
      const page = await get(`/pages/content?${q({ url: `${site}/guide`, max_length: 200 })}`);
      expect(page.status).toBe(200);
      expect(page.body).toEqual(await run('svc/get-page', { url: `${site}/guide`, max_length: 200 }));
      expect((await get(`/pages/content?${q({ url: `${site}/hidden`, in_search: 'true' })}`)).status).toBe(404);
      const list = await get(`/pages?${q({ prefix: '/', limit: 3 })}`);
      expect(list.body).toMatchObject({ total: 4, next_cursor: expect.any(String) });
      const rest = await get(`/pages?${q({ prefix: '/', limit: 3, cursor: list.body.next_cursor as string })}`);
      expect(rest.body).toMatchObject({ total: 4, next_cursor: null, pages: [{ url: `${site}/other` }] });
      // The page state by url is still there.
      expect((await get(`/pages?${q({ url: `${site}/guide` })}`)).body).toMatchObject({
        indexed: true,
        inSearch: true,
      });
      for (const [path, status, message] of [
        [`/pages/content?${q({ url: `${site}/nope` })}`, 404, /no stored page at .*svc\/list-pages/],
        [
          `/pages/content?${q({ url: 'https://elsewhere.example/x' })}`,
          400,
          /url: host elsewhere\.example is not a configured target/,
        ],
        [`/pages/content?${q({ url: `${site}/guide`, section: 'nope' })}`, 400, /its anchors: top, requirements/],
        [`/pages/content?${q({ url: `${site}/guide`, start_index: -1 })}`, 400, /start_index/],
        [`/pages?${q({ cursor: '%%%' })}`, 400, /cursor: is not a cursor svc gave/],
        [`/pages?${q({ prefix: 'ftp://x' })}`, 400, /prefix: must be a path/],
        [`/link-report?${q({ cursor: 'bm9wZQ' })}`, 400, /cursor: is not a cursor svc gave/],
      ] as const) {
        const r = await get(path);
        expect(r.status, path).toBe(status);
        expect(JSON.stringify(r.body), path).toMatch(message);
      }
      const past = await get(`/pages/content?${q({ url: `${site}/guide`, start_index: 5000 })}`);
      expect(past.body).toMatchObject({ markdown: '', next_start_index: null });
      // The link report's three missing links, one a page, by cursor: the same rows as one answer.
      const whole = await get(`/link-report?${q({ limit: 100 })}`);
      expect(whole.body).toMatchObject({ truncated: false, next_cursor: null });
      const rows = (r: Record<string, unknown>) =>
        (r.notFound as { pages: { url: string; links: { url: string }[] }[] }).pages.flatMap((p) =>
          p.links.map((l) => `${p.url} ${l.url}`),
        );
      expect(rows(whole.body)).toHaveLength(3);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await get(`/link-report?${q({ limit: 1, ...(cursor ? { cursor } : {}) })}`);
        expect(r.status).toBe(200);
        seen.push(...rows(r.body));
        expect((r.body.notFound as { count: number }).count).toBe(3);
        cursor = r.body.next_cursor as string | null;
        expect(r.body.truncated).toBe(cursor !== null);
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(rows(whole.body));
      const foreign = await get(
        `/link-report?${q({ limit: 1, reasons: 'redirect', cursor: (await get(`/link-report?${q({ limit: 1 })}`)).body.next_cursor as string })}`,
      );
      expect(foreign.status).toBe(400);
      expect(JSON.stringify(foreign.body)).toMatch(/cursor: belongs to another report/);
    } finally {
      await facade.close();
    }
  });
});
