// The ability form of the link report and its cache. SQLite only: pure mapping, and a cache over a FakeBackend (the
// store plays no part; the report on both stores is test/backend/report.test.ts, test/http/contract.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { toAbilityLinkReport, toAbilityCrawlRecord } from '../../src/abilities/rest-to-ability.js';
import { LINK_REPORT_TTL_MS } from '../../src/abilities/link-report-cache.js';
import { AbilityLinkReportSchema } from '../../src/abilities/schemas.js';
import type { AbilityError } from '../../src/abilities/types.js';
import { BackendError } from '../../src/model/errors.js';
import { addRoleUsers, makeHost, SITE, TARGET_HOST } from '../support/app.js';
import { emptyReport } from '../support/reports.js';
import { type FakeBackend, makeFakeApp } from '../support/fake-backend.js';

const REST = emptyReport({
  notFound: {
    count: 3,
    pages: [
      {
        url: `${SITE}/a`,
        links: [
          { url: `${SITE}/missing`, httpStatus: 404, message: 'Not Found', element: 'a', text: 'Missing page' },
          { url: `${SITE}/gone`, httpStatus: 410, message: 'Gone', element: 'img', text: 'A gone picture' },
        ],
      },
    ],
  },
  forbidden: {
    count: 1,
    pages: [
      {
        url: `${SITE}/b`,
        links: [
          {
            url: `${SITE}/secret`,
            httpStatus: 403,
            message: 'blocked: 403 Forbidden (cf-mitigated: challenge)',
            element: 'a',
            text: '',
            blocked: true,
          },
        ],
      },
    ],
  },
  serverError: {
    count: 1,
    pages: [
      {
        url: `${SITE}/a`,
        links: [
          { url: 'http://127.0.0.1:1/', httpStatus: 0, message: 'connection refused', element: 'script', text: '' },
        ],
      },
    ],
  },
  redirect: {
    count: 1,
    pages: [
      {
        url: `${SITE}/c`,
        links: [
          {
            url: `${SITE}/old`,
            httpStatus: 301,
            message: 'Moved Permanently',
            redirectsTo: `${SITE}/new`,
            element: 'css',
            text: '',
          },
        ],
      },
    ],
  },
  unknown: {
    count: 2,
    pages: [
      {
        url: `${SITE}/c`,
        links: [
          {
            url: `${SITE}/later`,
            httpStatus: 0,
            message: 'not fetched: the crawl stopped at max_pages',
            element: 'a',
            text: 'Later',
          },
        ],
      },
    ],
  },
  targets: [
    { host: TARGET_HOST, linkTracking: 'all', walkLinks: false, lastCrawlError: null, pages: 3 },
    { host: 'other.example', linkTracking: 'pdf', walkLinks: true, lastCrawlError: null, pages: 3 },
  ],
  truncated: true,
  lastFullCrawl: '2026-10-04T08:00:00.000Z',
});

describe('toAbilityLinkReport (pure)', () => {
  it('maps the REST form to the ability form', () => {
    const out = toAbilityLinkReport(REST);
    expect(out.counts).toEqual({
      pages: 6,
      problem_links: 6,
      occurrences: 8,
      reasons: {
        not_found: { problem_links: 2, occurrences: 3 },
        forbidden: { problem_links: 1, occurrences: 1 },
        server_error: { problem_links: 1, occurrences: 1 },
        redirect: { problem_links: 1, occurrences: 1 },
        unknown: { problem_links: 1, occurrences: 2 },
      },
    });
    expect({ ...out, counts: undefined }).toEqual({
      status: 'ready',
      counts: undefined,
      summary: { not_found: 3, forbidden: 1, server_error: 1, redirect: 1, unknown: 2 },
      links: [
        {
          page: `${SITE}/a`,
          link: `${SITE}/missing`,
          http_status: 404,
          reason: 'not_found',
          message: 'Not Found',
          redirects_to: null,
          element: 'a',
          text: 'Missing page',
          blocked: false,
          first_seen: null,
        },
        {
          page: `${SITE}/a`,
          link: `${SITE}/gone`,
          http_status: 410,
          reason: 'not_found',
          message: 'Gone',
          redirects_to: null,
          element: 'img',
          text: 'A gone picture',
          blocked: false,
          first_seen: null,
        },
        {
          page: `${SITE}/b`,
          link: `${SITE}/secret`,
          http_status: 403,
          reason: 'forbidden',
          message: 'blocked: 403 Forbidden (cf-mitigated: challenge)',
          redirects_to: null,
          element: 'a',
          text: '',
          blocked: true,
          first_seen: null,
        },
        {
          page: `${SITE}/a`,
          link: 'http://127.0.0.1:1/',
          http_status: 0,
          reason: 'server_error',
          message: 'connection refused',
          redirects_to: null,
          element: 'script',
          text: '',
          blocked: false,
          first_seen: null,
        },
        {
          page: `${SITE}/c`,
          link: `${SITE}/old`,
          http_status: 301,
          reason: 'redirect',
          message: 'Moved Permanently',
          redirects_to: `${SITE}/new`,
          element: 'css',
          text: '',
          blocked: false,
          first_seen: null,
        },
        {
          page: `${SITE}/c`,
          link: `${SITE}/later`,
          http_status: 0,
          reason: 'unknown',
          message: 'not fetched: the crawl stopped at max_pages',
          redirects_to: null,
          element: 'a',
          text: 'Later',
          blocked: false,
          first_seen: null,
        },
      ],
      top_links: [
        // Ties: report order, then by URL.
        { link: `${SITE}/gone`, reason: 'not_found', http_status: 410, pages: 1 },
        { link: `${SITE}/missing`, reason: 'not_found', http_status: 404, pages: 1 },
        { link: `${SITE}/secret`, reason: 'forbidden', http_status: 403, pages: 1 },
        { link: 'http://127.0.0.1:1/', reason: 'server_error', http_status: 0, pages: 1 },
        { link: `${SITE}/old`, reason: 'redirect', http_status: 301, pages: 1 },
        { link: `${SITE}/later`, reason: 'unknown', http_status: 0, pages: 1 },
      ],
      targets: [
        { host: TARGET_HOST, link_tracking: 'all', walk_links: false, last_crawl_error: null, pages: 3 },
        { host: 'other.example', link_tracking: 'pdf', walk_links: true, last_crawl_error: null, pages: 3 },
      ],
      truncated: true,
      next_cursor: null,
      last_full_crawl: '2026-10-04T08:00:00.000Z',
    });
    expect(AbilityLinkReportSchema.safeParse(out).success).toBe(true);
    expect(REST.redirect.pages[0]!.links[0]!.redirectsTo).toBe(`${SITE}/new`); // input untouched
  });

  it('maps an empty report', () => {
    expect(toAbilityLinkReport(emptyReport())).toMatchObject({
      summary: { not_found: 0, forbidden: 0, server_error: 0, redirect: 0, unknown: 0 },
      links: [],
      truncated: false,
      last_full_crawl: null,
    });
  });

  it('maps a crawl record to snake_case', () => {
    expect(
      toAbilityCrawlRecord({
        id: 7,
        mode: 'manual',
        status: 'running',
        urls: ['u'],
        startedAt: 's',
        finishedAt: null,
        stats: { pages: 1, links: 2, errors: 0, targets: { h: { pages: 1, cutByMaxPages: true } } },
      }),
    ).toEqual({
      id: 7,
      mode: 'manual',
      status: 'running',
      urls: ['u'],
      started_at: 's',
      finished_at: null,
      stats: {
        pages: 1,
        links: 2,
        errors: 0,
        problem_links: null,
        occurrences: null,
        targets: { h: { pages: 1, cut_by_max_pages: true } },
      },
      error: null,
      // A record written before the report/index times existed has neither.
      report_ready_at: null,
      indexed_at: null,
    });
  });
});

describe('svc/link-report cache', () => {
  let app: App;
  let backend: FakeBackend;
  afterEach(async () => app.close());

  async function setup() {
    ({ app, backend } = await makeFakeApp());
    backend.report = structuredClone(REST);
    const users = await addRoleUsers(app);
    const { host, clock } = await makeHost(app);
    const run = (input: unknown) =>
      host.registry.execute('svc/link-report', input, { user: users.administrator.user }) as Promise<{
        summary: { not_found: number };
      }>;
    return { host, clock, run };
  }

  it('answers from the cache for up to 15 minutes, then reads the backend again', async () => {
    const { clock, run } = await setup();
    const first = await run({});
    expect(backend.count('linkReport')).toBe(1);
    backend.report.notFound.count = 99;
    clock.t += LINK_REPORT_TTL_MS; // exactly 15 minutes old: still served
    expect(await run({})).toEqual(first);
    expect(backend.count('linkReport')).toBe(1);
    clock.t += 1;
    expect((await run({})).summary.not_found).toBe(99);
    expect(backend.count('linkReport')).toBe(2);
  });

  it('keys entries by target and limit', async () => {
    const { run } = await setup();
    await run({});
    await run({ limit: 25 }); // the default: same entry
    expect(backend.count('linkReport')).toBe(1);
    await run({ limit: 10 });
    await run({ target: TARGET_HOST });
    await run({ target: TARGET_HOST.toUpperCase() }); // host names fold case: same entry
    expect(backend.count('linkReport')).toBe(3);
    expect(backend.calls.map((c) => c.args[0])).toEqual([
      { target: undefined, limit: 25 },
      { target: undefined, limit: 10 },
      { target: TARGET_HOST, limit: 25 },
    ]);
  });

  it('refresh: true reads the backend and stores the fresh result', async () => {
    const { run } = await setup();
    await run({});
    backend.report.notFound.count = 42;
    expect((await run({ refresh: true })).summary.not_found).toBe(42);
    expect(backend.count('linkReport')).toBe(2);
    expect((await run({})).summary.not_found).toBe(42); // the refreshed entry
    expect(backend.count('linkReport')).toBe(2);
  });

  it('never caches an error', async () => {
    const { run } = await setup();
    backend.failWith = new BackendError('upstream_error', 'the /v1 service answered 503', 503);
    const e = (await run({}).catch((err: unknown) => err)) as AbilityError;
    expect(e).toMatchObject({ code: 'svc_api_error', status: 502, data: { upstream_status: 503 } });
    backend.failWith = null;
    expect((await run({})).summary.not_found).toBe(3);
    expect(backend.count('linkReport')).toBe(2);
  });

  it('a crawl ending in this process drops the cached entries', async () => {
    const { run, host } = await setup();
    await run({});
    await run({ limit: 5 });
    backend.report.notFound.count = 7;
    backend.endCrawl({ status: 'completed' });
    expect((await run({})).summary.not_found).toBe(7);
    expect((await run({ limit: 5 })).summary.not_found).toBe(7);
    expect(backend.count('linkReport')).toBe(4);
    // After host.close() crawl ends are no longer listened to.
    host.close();
    backend.report.notFound.count = 8;
    backend.endCrawl();
    expect((await run({})).summary.not_found).toBe(7);
  });

  it('deleting pages drops the cached entries too', async () => {
    const { run, host } = await setup();
    await run({});
    await host.functions.svc_delete_pages([`${SITE}/a`]);
    await run({});
    expect(backend.count('linkReport')).toBe(2);
  });
});
