// The agent surface of the abilities, in process over the real embedded backend and store: svc/get-crawl (latest,
// by id, unknown ids), link-report reasons and top_links, page-meta index state, the notices that name the next
// step, and the pure pieces behind them. The store-backed ones on SQLite and on PostgreSQL.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { reportNotice, searchNotice } from '../../src/abilities/rest-to-ability.js';
import { crawlProgress } from '../../src/abilities/svc-get-crawl.js';
import { AbilityError } from '../../src/abilities/types.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';
import { createCrawl, setCrawlStatus } from '../../src/store/crawls.js';
import type { PageWrite } from '../../src/model/crawl-writes.js';
import type { CrawlRecord } from '../../src/model/types.js';
import type { Role, User } from '../../src/model/users.js';
import { addRoleUsers, makeAppOn, ONE_HOST, makeHost, seedPosts, SITE, TARGET_HOST } from '../support/app.js';
import { DIALECTS, storeKit, writeThrough, type StoreKit } from '../support/stores.js';

let app: App;
let host: AbilityHost;
let users: Record<Role, { user: User; token: string }>;
afterEach(async () => {
  host?.close();
  await app?.close();
});

async function setup(kit: StoreKit): Promise<void> {
  app = await makeAppOn(kit, {}, ONE_HOST);
  users = await addRoleUsers(app);
  await seedPosts(app);
  ({ host } = await makeHost(app));
}

const run = (name: string, input: unknown, role: Role | null = 'administrator', signInHint?: string) =>
  host.registry.execute(name, input, { user: role ? users[role].user : null, signInHint });

async function errorOf(p: Promise<unknown>): Promise<AbilityError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AbilityError) return e;
    throw e;
  }
  throw new Error('expected an AbilityError');
}

function page(path: string, links: string[], over: Partial<PageWrite> = {}): PageWrite {
  return {
    url: `${SITE}${path}`,
    host: TARGET_HOST,
    httpStatus: 200,
    contentType: 'text/html',
    indexed: true,
    showInSearch: true,
    title: path,
    language: 'en',
    tags: [],
    superwords: [],
    content: `page ${path}`,
    meta: null,
    created: null,
    modified: null,
    sitemapLastmod: null,
    crawlId: 1,
    links: links.map((url) => ({ url, element: 'a', text: '' })),
    ...over,
  };
}

/** Three pages: /missing on all three, /secret on one, /old (a redirect) on two. */
async function seedReport(): Promise<number> {
  const crawl = (await createCrawl(app.store.sql, app.config.project.public_token, 'full'))!;
  await writeThrough(
    app.store,
    {
      pages: [
        page('/', [`${SITE}/missing`, `${SITE}/secret`, `${SITE}/old`]),
        page('/a', [`${SITE}/missing`, `${SITE}/old`]),
        page('/hello', [`${SITE}/missing`]),
        page('/noindex', [], { indexed: false }),
      ],
      outcomes: [
        {
          url: `${SITE}/missing`,
          httpStatus: 404,
          reason: 'not_found',
          message: 'Not Found',
          redirectsTo: null,
          crawlId: crawl.id,
        },
        {
          url: `${SITE}/secret`,
          httpStatus: 403,
          reason: 'forbidden',
          message: 'Forbidden',
          redirectsTo: null,
          crawlId: crawl.id,
        },
        {
          url: `${SITE}/old`,
          httpStatus: 301,
          reason: 'redirect',
          message: 'Moved',
          redirectsTo: `${SITE}/a`,
          crawlId: crawl.id,
        },
      ],
    },
    crawl.id,
  );
  await setCrawlStatus(app.store.sql, crawl.id, 'completed');
  return crawl.id;
}

describe.each(DIALECTS)('on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  describe('svc/get-crawl', () => {
    it('answers the latest crawl, a crawl by id, and says what to do for an unknown one', async () => {
      await setup(kit);
      let e = await errorOf(run('svc/get-crawl', undefined));
      expect(e.code).toBe('svc_crawl_not_found');
      expect(e.status).toBe(404);
      expect(e.message).toMatch(/no crawl has run yet.*svc\/full-crawl/);
      const id = await seedReport();
      const latest = (await run('svc/get-crawl', {})) as Record<string, unknown>;
      expect(latest).toMatchObject({
        id,
        mode: 'full',
        status: 'completed',
        urls: null,
        stats: { pages: expect.any(Number) },
      });
      expect(Object.keys(latest).sort()).toEqual([
        'error',
        'finished_at',
        'id',
        'indexed_at',
        'mode',
        'report_ready_at',
        'started_at',
        'stats',
        'status',
        'urls',
      ]);
      // A crawl written straight to the store (no crawl run) never said when its report and index were done.
      expect(latest.report_ready_at).toBeNull();
      expect(latest.indexed_at).toBeNull();
      expect(await run('svc/get-crawl', { id })).toEqual(latest);
      // An ended crawl answers at once, whatever wait_seconds says.
      const t = Date.now();
      expect(await run('svc/get-crawl', { id, wait_seconds: 30 })).toEqual(latest);
      expect(Date.now() - t).toBeLessThan(5000);
      e = await errorOf(run('svc/get-crawl', { id: id + 5 }));
      expect(e.code).toBe('svc_crawl_not_found');
      expect(e.message).toBe(`no crawl ${id + 5} in this project (the latest is ${id}; leave out id for it)`);
    });

    it('validates id and wait_seconds, and needs manage_options', async () => {
      await setup(kit);
      for (const [input, field] of [
        [{ id: 0 }, /id: must be at least 1/],
        [{ id: 1.5 }, /id: must be a whole number/],
        [{ wait_seconds: 61 }, /wait_seconds: must be at most 60/],
        [{ wait_seconds: -1 }, /wait_seconds: must be at least 0/],
        [{ wait: 5 }, /unknown field\(s\) "wait"/],
      ] as const) {
        const e = await errorOf(run('svc/get-crawl', input));
        expect(e.code, JSON.stringify(input)).toBe('ability_invalid_input');
        expect(e.message).toMatch(field);
      }
      expect((await errorOf(run('svc/get-crawl', {}, 'subscriber'))).code).toBe('ability_invalid_permissions');
    });

    it("maps live progress to the record's units: pages stored, no total unless known, done never past it", () => {
      const live = {
        pagesDone: 14,
        queued: 30,
        errors: 2,
        linksChecked: 40,
        requests: 50,
        elapsedMs: 3400,
        stats: { pages: 12, links: 40, errors: 2 },
      };
      expect(crawlProgress({ id: 4, mode: 'full' }, live)).toEqual({
        done: 12,
        total: null,
        queued: 30,
        message: 'crawl 4: 12 pages, 40 links (2 broken) so far, 30 queued (3 s)',
      });
      expect(crawlProgress({ id: 5, mode: 'manual', urls: ['a', 'b'] }, live)).toMatchObject({
        done: 2,
        total: 2,
        message: expect.stringMatching(/^crawl 5: 2 of 2 URLs, 12 pages/),
      });
    });
  });

  describe('errors that say what to do next', () => {
    it('names how to set a user when there is none, as the transport told', async () => {
      await setup(kit);
      const e = await errorOf(run('svc/link-report', {}, null, 'start `svc mcp` with SVC_USER=<login>'));
      expect(e.message).toBe(
        'svc/link-report needs a current user with the manage_options capability, and no user is set: start `svc mcp` with SVC_USER=<login>',
      );
    });

    it('answers a missing and a hidden post alike', async () => {
      await setup(kit);
      const missing = await errorOf(run('svc/get-page-meta', { post_id: 113 }, 'subscriber'));
      const hidden = await errorOf(run('svc/get-page-meta', { post_id: 2 }, 'subscriber'));
      expect(missing.message).toBe('no post 113 that you can read');
      expect(hidden.message).toBe('no post 2 that you can read');
      expect([missing.code, missing.status]).toEqual([hidden.code, hidden.status]);
    });

    it('search on an empty index says no crawl has run and names the crawl to run', async () => {
      await setup(kit);
      const out = (await run('svc/search', { terms: 'anything' }, 'subscriber')) as {
        results: { total: number };
        notice?: string;
      };
      expect(out.results.total).toBe(0);
      expect(out.notice).toMatch(/index is empty: no crawl has run yet.*svc\/full-crawl/);
      await seedReport();
      const after = (await run('svc/search', { terms: 'zzzz' }, 'subscriber')) as { notice?: string };
      expect(after.notice).toBeUndefined(); // a completed crawl: no match is simply no match
    });

    it('the report before any crawl says so and names the crawl to run', async () => {
      await setup(kit);
      const out = (await run('svc/link-report', {})) as {
        status: string;
        notice?: string;
        last_full_crawl: string | null;
        top_links: unknown[];
      };
      // Not an all-clear: a status of its own, and a notice naming the crawl to run.
      expect(out.status).toBe('not_crawled');
      expect(out.last_full_crawl).toBeNull();
      expect(out.top_links).toEqual([]);
      expect(out.notice).toMatch(/Not crawled yet.*not an all-clear.*svc\/full-crawl.*svc\/get-crawl/);
    });
  });

  describe('svc/link-report reasons and top_links', () => {
    it('lists the URLs carried by the most pages first, and filters by reason', async () => {
      await setup(kit);
      await seedReport();
      const all = (await run('svc/link-report', {})) as Record<string, any>;
      expect(all.notice).toBeUndefined();
      expect(all.top_links).toEqual([
        { link: `${SITE}/missing`, reason: 'not_found', http_status: 404, pages: 3 },
        { link: `${SITE}/old`, reason: 'redirect', http_status: 301, pages: 2 },
        { link: `${SITE}/secret`, reason: 'forbidden', http_status: 403, pages: 1 },
      ]);
      const broken = (await run('svc/link-report', { reasons: ['forbidden', 'redirect'], limit: 1 })) as Record<
        string,
        any
      >;
      // The filter applies before the limit: the first forbidden link, not the first not_found one.
      expect(broken.links).toEqual([expect.objectContaining({ link: `${SITE}/secret`, reason: 'forbidden' })]);
      expect(broken.summary).toEqual({ not_found: 0, forbidden: 1, server_error: 0, redirect: 2, unknown: 0 });
      expect(broken.truncated).toBe(true);
      const e = await errorOf(run('svc/link-report', { reasons: ['broken'] }));
      expect(e.code).toBe('ability_invalid_input');
      expect(e.message).toMatch(/reasons\[0\]/);
    });

    it('top_links counts pages over the whole report, not the links of the answer, and keeps at most 20', async () => {
      await setup(kit);
      await seedReport();
      const cut = (await run('svc/link-report', { limit: 1 })) as Record<string, any>;
      expect(cut.links).toHaveLength(1);
      expect(cut.top_links[0]).toEqual({ link: `${SITE}/missing`, reason: 'not_found', http_status: 404, pages: 3 });
      expect(cut.top_links.length).toBeLessThanOrEqual(20);
    });
  });

  describe('svc/get-page-meta index state', () => {
    it('says whether a crawl has indexed the post and whether it can be found', async () => {
      await setup(kit);
      const before = (await run('svc/get-page-meta', { post_id: 1 }, 'subscriber')) as Record<string, any>;
      expect(before.showInSearch).toBe(true);
      expect(before.index).toEqual({ indexed: false, in_search: false, last_crawled: null });
      await seedReport(); // stores /hello, the URL of post 1
      const after = (await run('svc/get-page-meta', { post_id: 1 }, 'subscriber')) as Record<string, any>;
      expect(after.index).toEqual({ indexed: true, in_search: true, last_crawled: expect.stringMatching(/^\d{4}-/) });
    });

    it('a stored page that is not indexed is neither indexed nor in search', async () => {
      await setup(kit);
      await seedReport();
      expect(await app.backend.pageIndexState(`${SITE}/noindex`)).toEqual({
        indexed: false,
        inSearch: false,
        lastCrawled: expect.any(String),
      });
      expect(await app.backend.pageIndexState(`${SITE}/a#top`)).toEqual({
        indexed: true,
        inSearch: true,
        lastCrawled: expect.any(String),
      });
    });
  });
});

describe('notices (pure)', () => {
  const rec = (over: Partial<CrawlRecord>): CrawlRecord => ({
    id: 3,
    mode: 'full',
    status: 'completed',
    startedAt: null,
    finishedAt: null,
    stats: { pages: 7, links: 0, errors: 0 },
    ...over,
  });
  it('search: empty index, running crawl, or nothing to say', () => {
    expect(searchNotice(null)).toMatch(/empty/);
    expect(searchNotice(rec({ status: 'running' }))).toMatch(
      /Crawl 3 \(full\) is still running \(7 pages so far\).*svc\/get-crawl/,
    );
    expect(searchNotice(rec({}))).toBeNull();
  });
  it('report: running, never crawled, no full crawl completed, or nothing to say', () => {
    expect(reportNotice('2026-01-01T00:00:00Z', rec({ status: 'queued' }))).toMatch(/still queued.*refresh: true/);
    expect(reportNotice(null, null)).toMatch(/No crawl has run yet/);
    expect(reportNotice(null, null, 'not_crawled')).toMatch(/^Not crawled yet/);
    expect(reportNotice(null, rec({ status: 'running' }), 'not_crawled')).toMatch(/still running/);
    expect(reportNotice(null, rec({ mode: 'partial', status: 'failed', error: 'boom' }))).toMatch(
      /No full crawl has completed yet.*ended failed: boom.*svc\/full-crawl/,
    );
    expect(reportNotice('2026-01-01T00:00:00Z', rec({}))).toBeNull();
  });
});
