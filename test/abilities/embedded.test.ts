// The abilities over the real embedded backend and a real store (SQLite and PostgreSQL), seeded the way a crawl writes.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import type { AbilityError } from '../../src/abilities/types.js';
import { createCrawl, setCrawlStatus } from '../../src/store/crawls.js';
import { pageMetaOfPost } from '../../src/cms/posts.js';
import type { Role, User } from '../../src/model/users.js';
import { DIALECTS, storeKit, writeThrough } from '../support/stores.js';
import {
  addRoleUsers,
  makeAppOn,
  makeHost,
  ONE_HOST,
  runPendingAfterCrawls,
  POSTS,
  seedPosts,
  SITE,
  TARGET_HOST,
} from '../support/app.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';
import { PostSchema } from '../../src/model/posts.js';
import type { PageWrite } from '../../src/model/crawl-writes.js';

let app: App;
let host: AbilityHost;
let users: Record<Role, { user: User; token: string }>;
/** When the seeded crawl ended: every problem of the report is first seen then. */
let firstSeen: string;

function page(
  path: string,
  title: string,
  content: string,
  links: string[] = [],
  over: Partial<PageWrite> = {},
): PageWrite {
  const meta = pageMetaOfPost(
    PostSchema.parse({
      id: 900 + path.length,
      url: `${SITE}${path}`,
      title,
      status: 'publish',
      author: 'author',
      language: 'en',
    }),
  );
  return {
    url: `${SITE}${path}`,
    host: TARGET_HOST,
    httpStatus: 200,
    contentType: 'text/html',
    indexed: true,
    showInSearch: true,
    title,
    language: 'en',
    tags: meta.tags,
    superwords: [],
    content,
    meta,
    created: null,
    modified: null,
    sitemapLastmod: null,
    crawlId: 1,
    links: links.map((url) => ({ url, element: 'a', text: '' })),
    ...over,
  };
}

describe.each(DIALECTS)('on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  beforeEach(async () => {
    app = await makeAppOn(kit, {}, ONE_HOST);
    users = await addRoleUsers(app);
    await seedPosts(app);
    const crawl = (await createCrawl(app.store.sql, app.config.project.public_token, 'full'))!;
    await writeThrough(
      app.store,
      {
        pages: [
          page('/', 'Home', 'Welcome to the volunteer weekend', [`${SITE}/missing`, `${SITE}/old`, `${SITE}/about`]),
          page('/about', 'About us', 'We organise a volunteer weekend every spring', [`${SITE}/secret`]),
          page('/hidden', 'Hidden volunteer page', 'volunteer', [], { showInSearch: false }),
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
            url: `${SITE}/old`,
            httpStatus: 301,
            reason: 'redirect',
            message: 'Moved Permanently',
            redirectsTo: `${SITE}/new`,
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
          { url: `${SITE}/about`, httpStatus: 200, reason: 'ok', message: 'OK', redirectsTo: null, crawlId: crawl.id },
        ],
      },
      crawl.id,
    );
    await setCrawlStatus(app.store.sql, crawl.id, 'completed');
    firstSeen = await runPendingAfterCrawls(app, crawl.id);
    ({ host } = await makeHost(app));
  });
  afterEach(async () => app.close());

  const run = (name: string, input: unknown, role: Role = 'administrator') =>
    host.registry.execute(name, input, { user: users[role].user });

  describe('abilities over the embedded backend', () => {
    it('svc/link-report: the stored outcomes in the ability form', async () => {
      const out = (await run('svc/link-report', {})) as Record<string, any>;
      expect(out.summary).toEqual({ not_found: 1, forbidden: 1, server_error: 0, redirect: 1, unknown: 0 });
      expect(out.links).toEqual(
        expect.arrayContaining([
          {
            page: `${SITE}/`,
            link: `${SITE}/missing`,
            http_status: 404,
            reason: 'not_found',
            message: 'Not Found',
            redirects_to: null,
            element: 'a',
            text: '',
            blocked: false,
            first_seen: firstSeen,
          },
          {
            page: `${SITE}/about`,
            link: `${SITE}/secret`,
            http_status: 403,
            reason: 'forbidden',
            message: 'Forbidden',
            redirects_to: null,
            element: 'a',
            text: '',
            blocked: false,
            first_seen: firstSeen,
          },
          {
            page: `${SITE}/`,
            link: `${SITE}/old`,
            http_status: 301,
            reason: 'redirect',
            message: 'Moved Permanently',
            redirects_to: `${SITE}/new`,
            element: 'a',
            text: '',
            blocked: false,
            first_seen: firstSeen,
          },
        ]),
      );
      expect(out.links).toHaveLength(3);
      expect(out.targets).toEqual([
        {
          host: TARGET_HOST,
          link_tracking: 'all',
          walk_links: expect.any(Boolean),
          last_crawl_error: null,
          pages: expect.any(Number),
        },
      ]);
      expect(out.truncated).toBe(false);
      expect(out.last_full_crawl).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
      const one = (await run('svc/link-report', { limit: 1, target: TARGET_HOST })) as Record<string, any>;
      expect(one.links).toHaveLength(1);
      expect(one.truncated).toBe(true);
      expect(one.summary.not_found + one.summary.forbidden + one.summary.redirect).toBe(3);
    });

    it('svc/search: finds indexed pages, never the hidden one', async () => {
      const out = (await run('svc/search', { terms: 'volunteer', search_params: { size: 10 } }, 'subscriber')) as {
        success: boolean;
        results: { total: number; hits: { url: string }[] };
      };
      expect(out.success).toBe(true);
      expect(out.results.hits.map((h) => h.url).sort()).toEqual([`${SITE}/`, `${SITE}/about`]);
      expect(out.results.total).toBe(2);
    });

    it('svc/delete-pages: removes pages from the index and says which were not there', async () => {
      const out = await run('svc/delete-pages', { urls: [`${SITE}/about`, `${SITE}/never`] });
      expect(out).toEqual({ deleted: [`${SITE}/about`], not_found: [`${SITE}/never`] });
      const after = (await run('svc/search', { terms: 'spring' })) as { results: { total: number } };
      expect(after.results.total).toBe(0);
      // The page's links left the report with it (and the cache was dropped).
      const report = (await run('svc/link-report', {})) as { summary: { forbidden: number } };
      expect(report.summary.forbidden).toBe(0);
    });

    it('svc/get-page-meta reads the post store', async () => {
      expect(await run('svc/get-page-meta', { post_id: 1 }, 'subscriber')).toMatchObject({
        title: POSTS[0]!.title,
        tags: expect.arrayContaining(['public']),
      });
      await expect(run('svc/get-page-meta', { post_id: 3 }, 'author')).rejects.toMatchObject({
        code: 'svc_post_not_found',
      });
    });

    it('svc/manual-crawl refuses a URL off the configured targets before reaching the crawler', async () => {
      const e = (await run('svc/manual-crawl', { urls: ['http://127.0.0.1:9/x'] }).catch(
        (err: unknown) => err,
      )) as AbilityError;
      expect(e).toMatchObject({ code: 'ability_invalid_input', status: 400 });
      expect(e.message).toContain('urls[0]');
    });
  });
});
