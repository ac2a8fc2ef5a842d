// One contract for every Backend: the same calls must give the same answers and the same errors, whether the
// engine runs in this process or behind another service's /v1 (RemoteBackend → facade on loopback).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import type { Backend } from '../../src/backend/backend.js';
import { BackendError } from '../../src/model/errors.js';
import { createCrawl, setCrawlStatus, updateCrawlStats } from '../../src/store/crawls.js';
import { writeThrough } from './stores.js';
import type { LinkReport } from '../../src/model/types.js';
import { HOST_A, HOST_B, runPendingAfterCrawls, TOKEN } from './app.js';
import { linkingPage as page, seedSmallSite } from './writes.js';
import { withCounts } from './reports.js';

export interface Harness {
  backend: Backend;
  /** The embedded engine holding the data (behind the facade, for the remote form). */
  engine: App;
  close(): Promise<void>;
}

const a = `https://${HOST_A}`;
const b = `http://${HOST_B}`;

/** The small site's report, as both backends must give it (firstSeen: see below). */
const SMALL_SITE_REPORT: LinkReport = withCounts({
  status: 'ready',
  notFound: {
    count: 3,
    pages: [
      {
        url: `${b}/`,
        links: [{ url: `${b}/doc.pdf`, httpStatus: 404, message: 'not_found message', element: 'a', text: '' }],
      },
      {
        url: `${a}/`,
        links: [{ url: `${a}/missing`, httpStatus: 404, message: 'not_found message', element: 'a', text: '' }],
      },
      {
        url: `${a}/b`,
        links: [{ url: `${a}/missing`, httpStatus: 404, message: 'not_found message', element: 'a', text: '' }],
      },
    ],
  },
  forbidden: {
    count: 1,
    pages: [
      {
        url: `${a}/`,
        links: [{ url: `${a}/secret`, httpStatus: 403, message: 'forbidden message', element: 'a', text: '' }],
      },
    ],
  },
  serverError: {
    count: 1,
    pages: [
      {
        url: `${a}/`,
        links: [{ url: `${a}/fail`, httpStatus: 500, message: 'server_error message', element: 'a', text: '' }],
      },
    ],
  },
  redirect: {
    count: 2,
    pages: [
      {
        url: `${a}/`,
        links: [
          {
            url: `${a}/old`,
            httpStatus: 301,
            message: 'redirect message',
            redirectsTo: `${a}/new`,
            element: 'a',
            text: '',
          },
        ],
      },
      {
        url: `${a}/b`,
        links: [
          {
            url: `${a}/old`,
            httpStatus: 301,
            message: 'redirect message',
            redirectsTo: `${a}/new`,
            element: 'a',
            text: '',
          },
        ],
      },
    ],
  },
  unknown: {
    count: 1,
    pages: [
      {
        url: `${a}/`,
        links: [
          { url: `${a}/later`, httpStatus: 0, message: 'not fetched: max_pages reached', element: 'a', text: '' },
        ],
      },
    ],
  },
  targets: [
    { host: HOST_A, linkTracking: 'all', walkLinks: true, lastCrawlError: null, pages: 2 },
    { host: HOST_B, linkTracking: 'pdf', walkLinks: true, lastCrawlError: null, pages: 1 },
  ],
  truncated: false,
  lastFullCrawl: null,
  next_cursor: null,
});

const SECTIONS = ['notFound', 'forbidden', 'serverError', 'redirect', 'unknown'] as const;

/** `report` with every link first seen at `at`. */
function seenAt(report: LinkReport, at: string): LinkReport {
  const out = structuredClone(report);
  for (const s of SECTIONS) for (const p of out[s].pages) for (const l of p.links) l.firstSeen = at;
  return out;
}

type Settled<T> = { ok: T } | { error: { code: string; status: number; message: string } };

async function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: await p };
  } catch (err) {
    expect(err).toBeInstanceOf(BackendError);
    const e = err as BackendError;
    return { error: { code: e.code, status: e.status, message: e.message } };
  }
}

export function backendContract(name: string, make: () => Promise<Harness>): void {
  describe(`Backend contract: ${name}`, () => {
    let h: Harness;
    let backend: Backend;
    const crawlIds: number[] = [];
    let expected: LinkReport;

    beforeAll(async () => {
      h = await make();
      backend = h.backend;
      await seedSmallSite(h.engine);
      // 120 finished crawls: more than one page of the facade's crawl list.
      for (let i = 0; i < 120; i++) {
        const rec = (await createCrawl(h.engine.store.sql, TOKEN, i % 3 === 0 ? 'full' : 'partial'))!;
        await updateCrawlStats(h.engine.store.sql, rec.id, {
          pages: i,
          links: 2 * i,
          errors: i % 2,
          targets: { [HOST_A]: { pages: i, cutByMaxPages: false } },
        });
        await setCrawlStatus(
          h.engine.store.sql,
          rec.id,
          i === 119 ? 'failed' : 'completed',
          i === 119 ? 'boom' : undefined,
        );
        crawlIds.push(rec.id);
      }
      expected = seenAt(SMALL_SITE_REPORT, await runPendingAfterCrawls(h.engine, crawlIds[0]!));
    });
    afterAll(async () => h?.close());

    it('serves the project it was made for', () => {
      expect(backend.publicToken).toBe(TOKEN);
    });

    it('linkReport: the whole report, in order', async () => {
      const r = await backend.linkReport({ limit: 1000 });
      // The last completed full crawl is crawl #117 (full every third; #119 failed).
      const lastFull = (await backend.getCrawl(crawlIds[117]!))!;
      expect(lastFull).toMatchObject({ mode: 'full', status: 'completed' });
      expect(r).toEqual({ ...expected, lastFullCrawl: lastFull.finishedAt });
    });

    it('linkReport: limit cuts across sections and says truncated; counts stay whole', async () => {
      const r = await backend.linkReport({ limit: 4 });
      expect(r.truncated).toBe(true);
      expect(r.notFound).toEqual(expected.notFound);
      expect(r.forbidden).toEqual(expected.forbidden);
      expect(r.serverError).toEqual({ count: 1, pages: [] });
      expect(r.redirect.count).toBe(2);
    });

    it('linkReport: target filter', async () => {
      const r = await backend.linkReport({ limit: 10, target: HOST_B });
      expect(r.notFound).toEqual({ count: 1, pages: [expected.notFound.pages[0]] });
      expect(r.redirect).toEqual({ count: 0, pages: [] });
      expect(r.targets).toEqual([expected.targets[1]]);
    });

    it('linkReport: bad input is invalid_input naming the field', async () => {
      expect(await settle(backend.linkReport({ limit: 10, target: 'elsewhere.example' }))).toEqual({
        error: {
          code: 'invalid_input',
          status: 400,
          message: expect.stringMatching(/^target: "elsewhere.example" is not a configured target host/),
        },
      });
      for (const limit of [0, 5001, 1.5, -1]) {
        expect(await settle(backend.linkReport({ limit }))).toEqual({
          error: { code: 'invalid_input', status: 400, message: 'limit: must be an integer from 1 to 5000' },
        });
      }
    });

    it('listCrawls: newest first, paged, across more than one page of the facade', async () => {
      const newestFirst = [...crawlIds].reverse();
      expect((await backend.listCrawls({ limit: 5, offset: 0 })).map((c) => c.id)).toEqual(newestFirst.slice(0, 5));
      expect((await backend.listCrawls({ limit: 3, offset: 10 })).map((c) => c.id)).toEqual(newestFirst.slice(10, 13));
      expect((await backend.listCrawls({ limit: 150, offset: 0 })).map((c) => c.id)).toEqual(newestFirst);
      expect(await backend.listCrawls({ limit: 10, offset: 500 })).toEqual([]);
    });

    it('getCrawl: the record with its stats; null when missing', async () => {
      const last = crawlIds.at(-1)!;
      expect(await backend.getCrawl(last)).toEqual({
        id: last,
        mode: 'partial',
        status: 'failed',
        trigger: 'request',
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
        stats: { pages: 119, links: 238, errors: 1, targets: { [HOST_A]: { pages: 119, cutByMaxPages: false } } },
        error: 'boom',
        // Written straight to the store, not by a crawl run: neither a report nor an index time.
        reportReadyAt: null,
        indexedAt: null,
      });
      expect(await backend.getCrawl(987654)).toBeNull();
    });

    it('schedule: each kind with its cron, next run and last run; null for a kind without one', async () => {
      const schedule = h.engine.config.schedule;
      expect(await backend.schedule()).toEqual({ full: null, partial: null, source: 'config', setAt: null });
      schedule.full = '0 3 * * 1';
      try {
        const s = await backend.schedule();
        expect(s).toEqual({
          full: { cron: '0 3 * * 1', nextRun: expect.any(String), lastRun: null },
          partial: null,
          source: 'config',
          setAt: null,
        });
        expect(Date.parse(s.full!.nextRun!)).toBeGreaterThan(Date.now());
        // A stored schedule replaces the config's until cleared; a bad one is invalid_input naming the field.
        expect(await backend.setSchedule({ partial: '0 * * * *' })).toMatchObject({
          full: null,
          partial: { cron: '0 * * * *' },
          source: 'stored',
        });
        await expect(backend.setSchedule({ full: '0 3 * *' })).rejects.toMatchObject({
          code: 'invalid_input',
          message: expect.stringMatching(/full: must be a cron expression/),
        });
        expect(await backend.setSchedule(null)).toMatchObject({ full: { cron: '0 3 * * 1' }, source: 'config' });
      } finally {
        delete schedule.full;
      }
    });

    it('search: the same hits and the same refusals', async () => {
      await writeThrough(h.engine.store, {
        pages: [page(`${a}/contract-search`, [], { title: 'Contract aardvark', content: 'the aardvark page' })],
      });
      const r = await backend.search('aardvark', { size: 5 });
      expect(r.hits.map((hit) => ({ url: hit.url, title: hit.title, highlight: hit.highlight }))).toEqual([
        {
          url: `${a}/contract-search`,
          title: 'Contract aardvark',
          highlight: expect.stringContaining('<em>aardvark</em>'),
        },
      ]);
      expect(r.total).toBe(1);
      expect(await settle(backend.search('aardvark', { size: 0 }))).toEqual({
        error: { code: 'invalid_input', status: 400, message: expect.stringContaining('size') },
      });
      expect(await settle(backend.search('aardvark', { colour: 'red' } as never))).toEqual({
        error: { code: 'invalid_input', status: 400, message: expect.stringContaining('colour') },
      });
    });

    it('deletePages: which were deleted and which were not there', async () => {
      await writeThrough(h.engine.store, { pages: [page(`${a}/contract-delete`, [])] });
      expect(await backend.deletePages([`${a}/contract-delete`, `${a}/contract-never`])).toEqual({
        deleted: [`${a}/contract-delete`],
        notFound: [`${a}/contract-never`],
      });
      expect(await backend.deletePages([`${a}/contract-delete`])).toEqual({
        deleted: [],
        notFound: [`${a}/contract-delete`],
      });
      const tooMany = await settle(backend.deletePages(Array.from({ length: 51 }, (_, i) => `${a}/x${i}`)));
      expect(tooMany).toEqual({
        error: expect.objectContaining({ code: 'invalid_input', status: 400, message: expect.stringContaining('50') }),
      });
    });

    it('startCrawl while one is running: conflict (409)', async () => {
      const running = (await createCrawl(h.engine.store.sql, TOKEN, 'full'))!;
      await setCrawlStatus(h.engine.store.sql, running.id, 'running');
      try {
        expect(await settle(backend.startCrawl({ mode: 'partial' }))).toEqual({
          error: expect.objectContaining({ code: 'conflict', status: 409 }),
        });
      } finally {
        await setCrawlStatus(h.engine.store.sql, running.id, 'stopped');
      }
    });

    it('startCrawl: a manual URL off every target is invalid_input naming it', async () => {
      expect(await settle(backend.startCrawl({ mode: 'manual', urls: ['https://elsewhere.example/x'] }))).toEqual({
        error: { code: 'invalid_input', status: 400, message: expect.stringMatching(/^urls\[0\]: /) },
      });
    });

    it('onCrawlEnded gives an unsubscribe function', () => {
      const off = backend.onCrawlEnded(() => {});
      expect(typeof off).toBe('function');
      off();
    });
  });
}
