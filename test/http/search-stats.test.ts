// Search analytics end to end on SQLite and PostgreSQL: searches through the backend (where every surface's search
// passes) are recorded once each, normalized, with their hit counts and nothing of who searched; the /v1 route and
// the remote backend read them (top queries, no-result queries, days), refuse a bad or future `since` and a bad
// `limit` naming the field; old records are pruned, retention 0 records nothing, and a search whose recording
// fails still answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { RemoteBackend } from '../../src/backend/remote.js';
import { silentLogger } from '../../src/lib/log.js';
import type { SearchStats } from '../../src/model/search-stats.js';
import { recordSearches } from '../../src/store/search-stats.js';
import { makeAppOn, startFacade, type Facade } from '../support/app.js';
import { DIALECTS, storeKit } from '../support/stores.js';
import { seedSmallSite } from '../support/writes.js';

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);

describe.each(DIALECTS)('search analytics on %s', (dialect) => {
  const kit = storeKit(dialect);
  let app: App;
  let api: Facade;

  beforeAll(async () => {
    app = await makeAppOn(kit);
    await seedSmallSite(app);
    api = await startFacade(app);
  });

  afterAll(async () => {
    await api?.close();
    await app?.close();
    await kit.stop();
  });

  const get = async (query: string) => {
    const res = await fetch(`${api.api}/search-stats${query}`, { headers: { authorization: `Bearer ${api.key}` } });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('records each search once, as the pipeline reads its terms, with its hit count; /v1 and remote read it', async () => {
    const words = await app.backend.search('Some  WORDS', {});
    expect(words.total).toBe(3);
    await app.backend.search('some words!', {});
    // A further page of the same search is not another search.
    await app.backend.search('some words', { from: 1 });
    expect((await app.backend.search('zebra', {})).total).toBe(0);
    await app.backend.search('Zebra', { size: 5 });
    await app.backend.search('"Some Words"', {});
    // Bad input is no search.
    await expect(app.backend.search('zebra', { size: 0 })).rejects.toMatchObject({ code: 'invalid_input' });

    const stats = await app.backend.searchStats({});
    expect(stats.retention_days).toBe(90);
    expect(Date.now() - Date.parse(stats.since)).toBeGreaterThanOrEqual(90 * DAY_MS - 60_000);
    expect(stats.totals).toEqual({ searches: 5, no_result_searches: 2, queries: 3, no_result_queries: 1 });
    expect(stats.top_queries.map(({ terms, searches, last_hits }) => ({ terms, searches, last_hits }))).toEqual([
      { terms: 'some words', searches: 2, last_hits: 3 },
      { terms: 'zebra', searches: 2, last_hits: 0 },
      { terms: '"some words"', searches: 1, last_hits: 3 },
    ]);
    expect(stats.no_result_queries).toEqual([
      { terms: 'zebra', searches: 2, last_hits: 0, last_searched: expect.stringMatching(/^\d{4}-.*Z$/) },
    ]);
    // Every day of the retention window, today's last with the searches.
    expect(stats.days).toHaveLength(91);
    expect(stats.days.at(-1)).toEqual({ day: today(), searches: 5, no_results: 2 });
    expect(stats.days.slice(0, -1).every((d) => d.searches === 0)).toBe(true);

    const rest = await get('');
    expect(rest.status).toBe(200);
    expect({ ...rest.body, since: null }).toEqual({ ...stats, since: null });
    const one = await get(`?limit=1&since=${today()}`);
    expect(one.body.since).toBe(`${today()}T00:00:00.000Z`);
    expect(one.body.top_queries).toHaveLength(1);
    expect(one.body.days).toEqual([{ day: today(), searches: 5, no_results: 2 }]);

    const remote = new RemoteBackend({
      baseUrl: api.baseUrl,
      apiKey: api.key,
      publicToken: app.backend.publicToken,
      logger: silentLogger,
    });
    try {
      expect(await remote.searchStats({ since: today(), limit: 2 })).toEqual(
        await app.backend.searchStats({ since: today(), limit: 2 }),
      );
      await expect(remote.searchStats({ since: 'yesterday' })).rejects.toMatchObject({ code: 'invalid_input' });
    } finally {
      await remote.close();
    }
  });

  it('stores the terms, the hit count and the time only: nothing of who searched', async () => {
    const columns =
      dialect === 'sqlite'
        ? (await app.store.sql.all<{ name: string }>("SELECT name FROM pragma_table_info('search_queries')")).map(
            (c) => c.name,
          )
        : (
            await app.store.sql.all<{ name: string }>(
              "SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'search_queries' AND table_schema = current_schema()",
            )
          ).map((c) => c.name);
    expect(columns.sort()).toEqual(['hits', 'id', 'project', 'searched_at', 'terms']);
  });

  it('refuses a since that is not a date or is in the future, and a bad limit, naming the field and the rule', async () => {
    const future = new Date(Date.now() + 2 * DAY_MS).toISOString();
    for (const [query, message] of [
      ['?since=yesterday', /^since: must be an ISO 8601 time .*not in the future/],
      [`?since=${encodeURIComponent(future)}`, /^since: must not be in the future/],
      ['?limit=0', /limit: must be an integer from 1 to 100/],
      ['?limit=101', /limit: must be an integer from 1 to 100/],
      ['?days=3', /days/],
    ] as const) {
      const r = await get(query);
      expect(r.status, query).toBe(400);
      expect(r.body.error.code).toBe('invalid_input');
      expect(r.body.error.message).toMatch(message);
    }
    await expect(app.backend.searchStats({ since: future })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^since: must not be in the future/),
    });
    const unauthorized = await fetch(`${api.api}/search-stats`);
    expect(unauthorized.status).toBe(401);
  });

  it('forgets searches past the retention window and never shows them', async () => {
    const old = new Date(Date.now() - 100 * DAY_MS).toISOString();
    await recordSearches(app.store.sql, app.backend.publicToken, [{ terms: 'ancient', hits: 0, at: old }]);
    const before = await app.backend.searchStats({ since: old.slice(0, 10) });
    expect(before.top_queries.map((q) => q.terms)).not.toContain('ancient');
    expect(Date.parse(before.since)).toBeGreaterThan(Date.parse(old));
    // The end of a crawl prunes with the other histories.
    const crawl = await app.backend.startCrawl({ mode: 'partial' });
    await app.backend.waitForCrawl(crawl.id);
    await app.backend.crawlChanges(crawl.id);
    const left = await app.store.sql.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM search_queries WHERE terms = 'ancient'",
    );
    expect(Number(left!.n)).toBe(0);
  });
});

describe.each(DIALECTS)('search analytics settings on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('retention_days 0 records no search', async () => {
    const app = await makeAppOn(kit, { search_stats: { retention_days: 0 } });
    try {
      await seedSmallSite(app);
      expect((await app.backend.search('words', {})).total).toBe(3);
      const stats: SearchStats = await app.backend.searchStats({});
      expect(stats.retention_days).toBe(0);
      expect(stats.totals.searches).toBe(0);
      const n = await app.store.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM search_queries');
      expect(Number(n!.n)).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('a search whose recording fails still answers', async () => {
    const app = await makeAppOn(kit);
    try {
      await seedSmallSite(app);
      await app.store.sql.exec('DROP TABLE search_queries');
      expect((await app.backend.search('words', {})).total).toBe(3);
      // The write fails off the search's path; reading the analytics then fails, the search never did.
      await expect(app.backend.searchStats({})).rejects.toThrow(/search_queries/);
      expect((await app.backend.search('some words', {})).total).toBe(3);
    } finally {
      await app.close();
    }
  });
});
