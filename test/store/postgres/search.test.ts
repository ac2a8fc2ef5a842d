// What only PostgreSQL's engine does: a page's own text search configuration, one schema per project. The shared cases run on both stores in test/store/search/search.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageWrite } from '../../../src/model/crawl-writes.js';
import type { SearchParams, SearchResults } from '../../../src/model/types.js';
import { searchPagesPg } from '../../../src/store/pg/search.js';
import { savePages } from '../../../src/store/pg/writes.js';
import type { PgSql } from '../../../src/store/pg/pg-sql.js';
import { BASE, searchPage as page } from '../../support/writes.js';
import { pgFixture, skip, type PgFixture } from '../../support/postgres.js';

const PAGES: PageWrite[] = [
  page('/storage', {
    title: 'Database storage layout',
    content: 'Pages, heap files and the free space map. Running vacuum now and then keeps tables small.',
  }),
  page('/sv', {
    title: 'Om databaser',
    content: 'Här skriver vi om stora databaserna och deras tabeller.',
    language: 'sv',
  }),
];

describe.skipIf(skip)('search on PostgreSQL', () => {
  let f: PgFixture;
  let sql: PgSql;
  const search = (terms: string, params: SearchParams = {}, hosts?: string[]): Promise<SearchResults> =>
    searchPagesPg(sql, terms, params, hosts ? { hosts } : {});
  const urls = (r: SearchResults) => r.hits.map((h) => h.url.slice(BASE.length));

  beforeAll(async () => {
    f = pgFixture();
    sql = await f.open();
    await sql.tx((tx) => savePages(tx, PAGES));
  });
  afterAll(async () => {
    await f?.close();
  });

  it('finds a Swedish page by the stem of its words (swedish configuration), not by an English stem', async () => {
    // "tabellerna" and "tabeller" share the Swedish stem tabell; English stems "tables" as tabl.
    expect(urls(await search('tabellerna'))).toEqual(['/sv']);
    expect(urls(await search('databaserna', { lang: 'sv' }))).toEqual(['/sv']);
    expect(urls(await search('stora tabellerna'))).toEqual(['/sv']);
    expect((await search('tabellerna', { lang: 'en' })).total).toBe(0);
    // The query is read in every configuration in use: "databaserna" is also the English pages' stem databas.
    expect(urls(await search('databaserna'))).toContain('/sv');
  });

  it("reads a search's matches through the index, and leaves the connection's planner settings as they were", async () => {
    const before = await sql.get<{ s: string; j: string }>(
      "SELECT current_setting('enable_seqscan') AS s, current_setting('jit') AS j",
    );
    expect(before?.s).toBe('on');
    expect(urls(await search('vacuum'))).toEqual(['/storage']);
    // The settings are the search's transaction's alone: every connection of the pool has them as before.
    for (let i = 0; i < 4; i++)
      expect(
        await sql.get<{ s: string; j: string }>(
          "SELECT current_setting('enable_seqscan') AS s, current_setting('jit') AS j",
        ),
      ).toEqual(before);
  });

  it('searches each project in its own schema of one database, folding diacritics in both', async () => {
    const database = await f.createDatabase();
    const a = await f.open({ database, schema: 'proj_a' });
    const b = await f.open({ database, schema: 'proj_b' });
    await a.tx((tx) => savePages(tx, [page('/a', { title: 'Crème A', content: 'alpha résumé' })]));
    await b.tx((tx) => savePages(tx, [page('/b', { title: 'Crème B', content: 'beta résumé', language: 'sv' })]));
    expect((await searchPagesPg(a, 'resume', {})).hits.map((h) => h.title)).toEqual(['Crème A']);
    expect((await searchPagesPg(b, 'resume', {})).hits.map((h) => h.title)).toEqual(['Crème B']);
    expect((await searchPagesPg(b, 'alpha', {})).total).toBe(0);
  });
});
