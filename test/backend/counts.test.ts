// One vocabulary of counts: one crawl of a loopback site with a link broken on two pages, a redirect and a link to
// a closed port, read through every surface — the crawl record on /v1 and through svc/get-crawl, the report on /v1
// and through svc/link-report, the CLI's closing lines, the console's crawl row, the MCP task status and the
// webhook body — gives the same pages, links, problem links and occurrences.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { crawlTaskStatusMessage } from '../../src/backend/crawl-tasks.js';
import { summary } from '../../src/cli/crawl.js';
import { crawlRows } from '../../src/http/console/pages/crawls.js';
import type { CrawlRecord, LinkReport } from '../../src/model/types.js';
import { addRoleUsers, makeApp, makeHost, startFacade, type Facade } from '../support/app.js';
import { closedPort, html, redirect, startSite, type TestSite } from '../support/site.js';

let site: TestSite;
let app: App;
let facade: Facade;

beforeAll(async () => {
  const down = await closedPort();
  site = await startSite({
    '/': html(
      `<a href="/a">a</a> <a href="/gone">gone</a> <a href="/old">old</a> <a href="http://127.0.0.1:${down}/x">x</a>`,
    ),
    '/a': html('<a href="/gone">gone again</a> <a href="/">home</a>'),
    '/old': redirect(301, '/a'),
  });
  app = await makeApp(
    {
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', use_sitemap: false, walk_links: true }],
      webhooks: [{ url: 'http://127.0.0.1:9/hook', secret: 'a-secret-of-16-chars', allow_private: true }],
    },
    {},
  );
  facade = await startFacade(app);
}, 60_000);

afterAll(async () => {
  await facade?.close();
  await app?.close();
  await site?.close();
});

it('the same crawl shows the same numbers on every surface', async () => {
  const started = await app.backend.startCrawl({ mode: 'full' });
  const rec = await app.backend.waitForCrawl(started.id);
  expect(rec.status).toBe('completed');
  // /gone on two pages (not_found), /old (redirect), the closed port (unknown: the address policy refuses it).
  expect(rec.stats).toMatchObject({ pages: 2, problemLinks: 3, occurrences: 4 });
  expect(rec.stats.reasons).toMatchObject({
    not_found: { problemLinks: 1, occurrences: 2 },
    redirect: { problemLinks: 1, occurrences: 1 },
    unknown: { problemLinks: 1, occurrences: 1 },
  });
  const { pages, links, errors, problemLinks, occurrences } = rec.stats;

  const get = async (path: string) =>
    (await fetch(`${facade.api}${path}`, { headers: { authorization: `Bearer ${facade.key}` } })).json();
  const v1Crawl = (await get(`/crawls/${rec.id}`)) as CrawlRecord;
  expect(v1Crawl.stats).toEqual(rec.stats);
  const v1Report = (await get('/link-report')) as LinkReport;
  expect(v1Report.counts).toEqual({ pages, problemLinks, occurrences, reasons: rec.stats.reasons });
  expect(v1Report.notFound.count).toBe(rec.stats.reasons!.not_found.occurrences);

  const { host } = await makeHost(app);
  const admin = (await addRoleUsers(app)).administrator.user;
  const run = (name: string, input: object) => host.registry.execute(name, input, { user: admin });
  expect(await run('svc/get-crawl', { id: rec.id })).toMatchObject({
    stats: { pages, links, errors, problem_links: problemLinks, occurrences },
  });
  expect(await run('svc/link-report', { refresh: true })).toMatchObject({
    status: 'ready',
    counts: {
      pages,
      problem_links: problemLinks,
      occurrences,
      reasons: { not_found: { problem_links: 1, occurrences: 2 } },
    },
  });

  const phrase = `${pages} pages, ${links} links (${errors} broken), ${problemLinks} problem links (${occurrences} occurrences)`;
  expect(summary(rec)).toContain(phrase);
  expect(crawlTaskStatusMessage(rec.id, rec, 'completed')).toBe(`crawl ${rec.id} completed: ${phrase}`);
  const row = crawlRows({ project: { token: app.backend.publicToken } } as never, [rec], false)[0]!;
  // The cells wrap each number in a span the page's script updates; a person reads the text.
  const text = (cell: string) => cell.replace(/<[^>]*>/g, '');
  expect(row.slice(5, 8).map(text)).toEqual([
    String(pages),
    `${links} (${errors} broken)`,
    `${problemLinks} (${occurrences} occurrence${occurrences === 1 ? '' : 's'})`,
  ]);

  const hook = await app.store.sql.get<{ body: string }>(
    'SELECT body FROM webhook_deliveries ORDER BY seq DESC LIMIT 1',
  );
  expect((JSON.parse(hook!.body) as { crawl: CrawlRecord }).crawl.stats).toEqual(rec.stats);
}, 120_000);
