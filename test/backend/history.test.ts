// Problem history over real crawls of a loopback site the test changes between crawls: what a crawl changed (new,
// fixed), first seen kept across re-saves of a page (on SQLite and PostgreSQL), the since filter and its counts, and the migration that
// fills first seen for an existing database. The new/fixed decision is also tested alone (pure).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../src/backend/embedded.js';
import { diffProblems } from '../../src/backend/history/changes.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { BackendError } from '../../src/model/errors.js';
import { normalizeSince } from '../../src/model/history.js';
import type { CrawlRecord, LinkReport } from '../../src/model/types.js';
import type { ProblemEpisode } from '../../src/store/history.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';
import { savePages, saveOutcomes } from '../../src/store/sqlite/writes.js';
import { Store } from '../../src/store/sqlite/store.js';
import { startSite, type TestSite } from '../support/site.js';
import type { ServiceStore } from '../../src/store/service-store.js';
import { DIALECTS, storeKit } from '../support/stores.js';

const PROJECT = 'hist0001:eu-north-1';

function episode(over: Partial<ProblemEpisode>): ProblemEpisode {
  return {
    pageUrl: 'http://s/p',
    url: 'http://s/x',
    reason: 'not_found',
    host: 's',
    httpStatus: 404,
    message: '',
    redirectsTo: null,
    element: 'a',
    text: '',
    blocked: false,
    firstCrawl: 1,
    firstSeen: 't1',
    fixedCrawl: null,
    fixedAt: null,
    ...over,
  };
}

describe('diffProblems (pure)', () => {
  it('new: present after the crawl and not after the since crawl; fixed: the other way round', () => {
    const eps = [
      episode({ url: 'http://s/stays', firstCrawl: 1 }),
      episode({ url: 'http://s/mended', firstCrawl: 1, fixedCrawl: 3 }),
      episode({ url: 'http://s/broke', firstCrawl: 3 }),
      // Came and went between the two ends: neither new nor fixed.
      episode({ url: 'http://s/flicker', firstCrawl: 2, fixedCrawl: 3 }),
      // A link whose reason changed: fixed under the old reason, new under the new one.
      episode({ url: 'http://s/moved', reason: 'redirect', firstCrawl: 1, fixedCrawl: 3 }),
      episode({ url: 'http://s/moved', reason: 'not_found', firstCrawl: 3 }),
    ];
    const d = diffProblems(eps, 3, 1);
    expect(d.new.map((e) => `${e.reason} ${e.url}`)).toEqual(['not_found http://s/broke', 'not_found http://s/moved']);
    expect(d.fixed.map((e) => `${e.reason} ${e.url}`)).toEqual([
      'not_found http://s/mended',
      'redirect http://s/moved',
    ]);
  });

  it('without a since crawl everything present is new and nothing is fixed', () => {
    const d = diffProblems(
      [episode({ firstCrawl: 1 }), episode({ url: 'http://s/y', firstCrawl: 1, fixedCrawl: 2 })],
      2,
      null,
    );
    expect(d.new.map((e) => e.url)).toEqual(['http://s/x']);
    expect(d.fixed).toEqual([]);
  });

  it('a problem that went away and came back is one key: present at both ends, so neither', () => {
    const eps = [episode({ firstCrawl: 1, fixedCrawl: 2 }), episode({ firstCrawl: 3, firstSeen: 't3' })];
    expect(diffProblems(eps, 3, 1)).toEqual({ new: [], fixed: [] });
    expect(diffProblems(eps, 3, 2).new.map((e) => e.firstSeen)).toEqual(['t3']);
  });
});

it('normalizeSince: ISO times with Z or an offset, or a date alone, become the stored form; anything else is refused', () => {
  expect(normalizeSince('2026-11-23T10:00:00+02:00')).toBe('2026-11-23T08:00:00.000Z');
  expect(normalizeSince('2026-11-23T08:00Z')).toBe('2026-11-23T08:00:00.000Z');
  expect(normalizeSince('2026-11-23')).toBe('2026-11-23T00:00:00.000Z');
  expect(normalizeSince('2026-11-23T10:00:00 02:00')).toBe('2026-11-23T08:00:00.000Z');
  for (const bad of ['yesterday', '2026-11-23T08:00:00', '23.11.2026', '2026-13-45T00:00:00Z', ''])
    expect(normalizeSince(bad)).toBeNull();
});

describe.each(DIALECTS)('history over real crawls on %s', (dialect) => {
  const kit = storeKit(dialect);
  let site: TestSite;
  let store: ServiceStore;
  let backend: EmbeddedBackend;
  // What the site serves: the test changes it between crawls.
  const homeLinks = ['/a', '/gone1'];
  let aLinks = ['/moved'];
  let gone1Exists = false;
  const html = (links: string[]) =>
    `<html><head><title>t</title></head><body>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;

  beforeAll(async () => {
    site = await startSite({
      '/': (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(html(homeLinks)),
      '/a': (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(html(aLinks)),
      '/moved': (_q, res) => void res.writeHead(301, { location: '/' }).end(),
      '/gone1': (_q, res) =>
        void (gone1Exists
          ? res.writeHead(200, { 'content-type': 'text/html' }).end(html([]))
          : res.writeHead(404).end()),
    });
    const config = parseConfig({
      project: { public_token: PROJECT },
      data_dir: mkdtempSync(join(tmpdir(), 'svc-hist-')),
      targets: [
        { host: site.host, scheme: 'http', track_links: 'all', use_sitemap: false, walk_links: true, concurrency: 2 },
      ],
      webhooks: [
        {
          url: 'http://127.0.0.1:9/hook',
          secret: 'a-secret-of-16-chars',
          events: ['crawl.completed'],
          allow_private: true,
        },
      ],
    });
    store = (await kit.fresh({ token: PROJECT })).store;
    backend = new EmbeddedBackend({ config, store, logger: silentLogger });
  });

  afterAll(async () => {
    await backend.close();
    await kit.stop();
    await site.close();
  });

  const crawl = async (mode: 'full' | 'manual', urls?: string[]): Promise<CrawlRecord> => {
    const rec = await backend.waitForCrawl((await backend.startCrawl(urls ? { mode, urls } : { mode })).id);
    expect(rec.status).toBe('completed');
    return rec;
  };
  const links = (r: LinkReport) =>
    (['notFound', 'redirect'] as const).flatMap((k) =>
      r[k].pages.flatMap((p) => p.links.map((l) => ({ page: p.url, url: l.url, firstSeen: l.firstSeen }))),
    );

  it('lists a link broken between two crawls as new and a mended one as fixed; first seen survives re-saves; since filters', async () => {
    const first = await crawl('full');
    const one = await backend.crawlChanges(first.id);
    expect(one.since).toBeNull();
    expect(one.new.map((l) => `${l.reason} ${l.page} ${l.url}`).sort()).toEqual([
      `not_found ${site.origin}/ ${site.origin}/gone1`,
      `redirect ${site.origin}/a ${site.origin}/moved`,
    ]);
    expect(one.new.every((l) => l.firstSeen === first.finishedAt)).toBe(true);
    expect(one.fixed).toEqual([]);

    // Between the crawls: /gone1 is mended, /a gets a new broken link.
    gone1Exists = true;
    aLinks = ['/moved', '/gone2'];
    // A manual crawl of /a re-saves the page (its report rows are written again): first seen of /moved stays.
    const manual = await crawl('manual', [`${site.origin}/a`]);
    const afterManual = links(await backend.linkReport({ limit: 100 }));
    expect(afterManual.find((l) => l.url === `${site.origin}/moved`)?.firstSeen).toBe(first.finishedAt);
    expect(afterManual.find((l) => l.url === `${site.origin}/gone2`)?.firstSeen).toBe(manual.finishedAt);

    const second = await crawl('full');
    const two = await backend.crawlChanges(second.id);
    expect(two.since).toBe(first.finishedAt);
    expect(two.new).toEqual([
      {
        page: `${site.origin}/a`,
        url: `${site.origin}/gone2`,
        reason: 'not_found',
        httpStatus: 404,
        message: expect.any(String),
        element: 'a',
        text: '/gone2',
        firstSeen: manual.finishedAt,
      },
    ]);
    expect(two.fixed.map((l) => `${l.reason} ${l.page} ${l.url} ${l.firstSeen}`)).toEqual([
      `not_found ${site.origin}/ ${site.origin}/gone1 ${first.finishedAt}`,
    ]);
    // The first crawl's changes are still answerable after later crawls.
    expect((await backend.crawlChanges(first.id)).new).toHaveLength(2);

    const report = await backend.linkReport({ limit: 100 });
    expect(links(report).find((l) => l.url === `${site.origin}/moved`)?.firstSeen).toBe(first.finishedAt);
    // since: only problems first seen after it; the counts count only those.
    const since = await backend.linkReport({ limit: 100, since: first.finishedAt! });
    expect(links(since).map((l) => l.url)).toEqual([`${site.origin}/gone2`]);
    expect([since.notFound.count, since.redirect.count]).toEqual([1, 0]);
    expect(report.redirect.count).toBe(1);
    await expect(backend.linkReport({ limit: 100, since: 'last tuesday' })).rejects.toThrow(
      /^since: must be an ISO 8601 time/,
    );
    await expect(backend.crawlChanges(9999)).rejects.toMatchObject({ code: 'not_found' });

    // Each completed crawl put one delivery for the webhook in the outbox, in the transaction of its end.
    const deliveries = await backend.listWebhookDeliveries({ limit: 10, offset: 0 });
    expect(deliveries.map((d) => [d.event, d.crawl])).toEqual([
      ['crawl.completed', second.id],
      ['crawl.completed', manual.id],
      ['crawl.completed', first.id],
    ]);
    expect(JSON.stringify(deliveries)).not.toContain('a-secret-of-16-chars');
  }, 60_000);

  it('a crawl that has not ended has no changes yet (conflict)', async () => {
    const rec = await backend.startCrawl({ mode: 'full' });
    try {
      await backend.crawlChanges(rec.id);
      throw new Error('expected a conflict');
    } catch (err) {
      expect(err).toBeInstanceOf(BackendError);
      expect((err as BackendError).code).toBe('conflict');
    } finally {
      await backend.waitForCrawl(rec.id);
    }
  });
});

it('migration 8 fills first seen of an existing database with its last crawl time', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-hist-mig-')), 'svc.db');
  // Today's page writer needs later migrations' columns, so the data is written at today's schema and migration 8
  // is then undone and run again on it, as it ran on databases that had data before it.
  const old = new Store(path);
  old.db
    .prepare(
      `INSERT INTO crawls (id, project, mode, status, started_at, finished_at) VALUES (1, ?, 'full', 'completed', '2026-01-01T00:00:00.000Z', '2026-01-01T00:05:00.000Z')`,
    )
    .run(PROJECT);
  old.db
    .prepare(
      `INSERT INTO crawls (id, project, mode, status, started_at, finished_at) VALUES (2, ?, 'partial', 'completed', '2026-02-01T00:00:00.000Z', '2026-02-01T00:05:00.000Z')`,
    )
    .run(PROJECT);
  savePages(old, [
    {
      url: 'http://s.example/',
      host: 's.example',
      httpStatus: 200,
      contentType: 'text/html',
      indexed: true,
      showInSearch: true,
      title: 't',
      language: 'en',
      tags: [],
      superwords: [],
      content: 'c',
      meta: null,
      created: null,
      modified: null,
      sitemapLastmod: null,
      crawlId: 2,
      links: [{ url: 'http://s.example/missing', element: 'a', text: 'm' }],
    },
  ]);
  saveOutcomes(old, [
    {
      url: 'http://s.example/missing',
      httpStatus: 404,
      reason: 'not_found',
      message: 'Not Found',
      redirectsTo: null,
      crawlId: 2,
    },
  ]);
  old.db.exec('DROP TABLE problem_history; ALTER TABLE crawls DROP COLUMN history_done');
  old.db.exec(MIGRATIONS.find((m) => m.version === 8)!.sql);
  old.close();
  const store = new Store(path);
  try {
    expect(
      store.db.prepare('SELECT page_url, url, reason, first_crawl, first_seen, fixed_crawl FROM problem_history').all(),
    ).toEqual([
      {
        page_url: 'http://s.example/',
        url: 'http://s.example/missing',
        reason: 'not_found',
        first_crawl: 2,
        first_seen: '2026-02-01T00:05:00.000Z',
        fixed_crawl: null,
      },
    ]);
    expect(store.db.prepare('SELECT id FROM crawls WHERE history_done = 0').all()).toEqual([]);
  } finally {
    store.close();
  }
});
