// The search on PostgreSQL, held to what the SQLite search tests (test/store/search-index/search.test.ts) ask.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageWrite } from '../../../src/model/crawl-writes.js';
import { BackendError } from '../../../src/model/errors.js';
import type { PageMeta, SearchParams, SearchResults } from '../../../src/model/types.js';
import { highlightHtml, RANK_ALL, RANK_BLOCK, searchPagesPg } from '../../../src/store/pg/search.js';
import { removePagesByUrl, savePages } from '../../../src/store/pg/writes.js';
import type { PgSql } from '../../../src/store/pg/pg-sql.js';
import { BASE, searchPage as page } from '../../support/writes.js';
import { HOSTILE, OVERSIZE } from '../../support/search-input.js';
import { pgFixture, skip, type PgFixture } from '../../support/postgres.js';

function meta(over: Partial<PageMeta>): PageMeta {
  return {
    showInSearch: true,
    title: '',
    url: '',
    created: null,
    modified: null,
    language: 'en',
    tags: [],
    customFields: {},
    superwords: [],
    ...over,
  };
}

const PAGES: PageWrite[] = [
  page('/vacuum', {
    title: 'VACUUM command',
    content: 'Garbage-collect and optionally analyze a database. It reclaims storage occupied by dead tuples.',
    tags: ['public', 'post_type/page'],
    created: '2026-01-02T03:04:05Z',
    modified: '2026-02-03T04:05:06Z',
    meta: meta({ customFields: { postId: { type: 'number', value: 42 } } }),
  }),
  page('/storage', {
    title: 'Database storage layout',
    content: 'Pages, heap files and the free space map. Running vacuum now and then keeps tables small. '.repeat(3),
    tags: ['public', 'post_type/post', 'taxonomy/category/internals'],
  }),
  page('/uutiset', {
    title: 'Uutiset',
    content: 'Tietokannan vacuum-komento ja muut uutiset.',
    language: 'fi',
    tags: ['public', 'taxonomy/category/news'],
  }),
  page('/en-us', {
    title: 'Regional page',
    content: 'A page about vacuum written in American English.',
    language: 'en-US',
    tags: ['public', 'taxonomy/category/news'],
  }),
  page('/cafe', {
    title: 'Café crème',
    content: 'Le café crème et la crème brûlée. Résumé of Zürich.',
    language: 'fr',
  }),
  page('/hidden', { title: 'Hidden page', content: 'hiddenword vacuum', showInSearch: false }),
  page('/noindex', { title: 'Noindex page', content: 'noindexword vacuum', indexed: false }),
  page('/superwords', {
    title: 'Maintenance overview',
    content: 'Routine tasks for administrators.',
    superwords: ['autovacuum', 'housekeeping'],
  }),
  page('/nohl', {
    title: 'Highlight rules',
    content: 'Visible part about indexes. Confidential addendum: indexes secretword details.',
    meta: meta({ contentNoHighlight: 'Confidential addendum: indexes secretword details.' }),
  }),
  page('/sv', {
    title: 'Om databaser',
    content: 'Här skriver vi om stora databaserna och deras tabeller.',
    language: 'sv',
  }),
  page('/html', { title: 'Markup', content: 'Use <script>alert("x")</script> & friends in templates.' }),
  // Ranking: the title that is the query, one holding every word, and pages saying it in their body only.
  page('/rank/body', {
    title: 'Miscellany',
    content: 'advisory locks advisory locks advisory locks are mentioned here often',
  }),
  page('/rank/exact', { title: 'Advisory Locks', content: 'How to take one.' }),
  page('/rank/words', { title: 'Locks: advisory and other kinds', content: 'An overview.' }),
  page('/rank/heading', {
    title: 'Concurrency control',
    content: 'Sections on locking.',
    headings: ['13.3.5. Advisory Locks'],
  }),
  ...Array.from({ length: 25 }, (_, i) =>
    page(`/common/${i}`, { title: `Common page ${i}`, content: `shared plentiful words number ${i}` }),
  ),
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

  it('answers exactly the documented shape', async () => {
    const r = await search('vacuum tuples');
    expect(Object.keys(r).sort()).toEqual(['duration', 'hits', 'total']);
    expect(r.total).toBe(1);
    expect(r.hits[0]).toEqual({
      score: expect.any(Number),
      title: 'VACUUM command',
      url: `${BASE}/vacuum`,
      language: 'en',
      highlight: expect.stringContaining('<em>'),
      tags: ['post_type/page', 'public'],
      created: '2026-01-02T03:04:05Z',
      modified: '2026-02-03T04:05:06Z',
      customFields: { postId: { type: 'number', value: 42 } },
    });
    expect(r.hits[0]!.score).toBeGreaterThan(0);
  });

  it('ranks a title that is the query first, then titles holding every word, then the body', async () => {
    const r = await search('advisory locks');
    expect(urls(r)).toEqual(['/rank/exact', '/rank/heading', '/rank/words', '/rank/body']);
    const scores = r.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const v = await search('vacuum');
    expect(urls(v)[0]).toBe('/vacuum');
    expect(urls(v).indexOf('/vacuum')).toBeLessThan(urls(v).indexOf('/storage'));
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

  it('weights superwords like a title, matches the last word as a prefix, phrases in order', async () => {
    expect(urls(await search('housekeeping'))).toEqual(['/superwords']);
    expect(urls(await search('reclai'))).toEqual(['/vacuum']);
    expect(urls(await search('garbage rec'))).toEqual(['/vacuum']);
    expect((await search('garbage re')).total).toBe(0);
    expect((await search('reclai garbage')).total).toBe(0);
    expect(urls(await search('"reclaims storage"'))).toEqual(['/vacuum']);
    expect((await search('"storage reclaims"')).total).toBe(0);
    expect(urls(await search('"free space" map'))).toEqual(['/storage']);
    expect((await search('vacuum nonexistentword')).total).toBe(0);
  });

  it('folds case and diacritics both ways', async () => {
    expect(urls(await search('cafe creme'))).toEqual(['/cafe']);
    expect(urls(await search('CAFÉ BRÛLÉE'))).toEqual(['/cafe']);
    expect(urls(await search('resume zurich'))).toEqual(['/cafe']);
    expect((await search('brulee')).hits[0]!.highlight).toContain('<em>brûlée</em>');
  });

  it('filters by language, tags and hosts', async () => {
    expect(urls(await search('vacuum', { lang: 'fi' }))).toEqual(['/uutiset']);
    expect(urls(await search('vacuum', { lang: 'EN' })).sort()).toEqual(['/en-us', '/storage', '/vacuum']);
    expect(urls(await search('vacuum', { lang: 'en-us' }))).toEqual(['/en-us']);
    expect((await search('vacuum', { lang: 'de' })).total).toBe(0);
    expect(urls(await search('vacuum', { tags: ['taxonomy/category/news'] })).sort()).toEqual(['/en-us', '/uutiset']);
    expect((await search('vacuum', { tags: ['taxonomy/category/news', 'post_type/page'] })).total).toBe(0);
    expect((await search('vacuum', { tags: ['taxonomy/category'] })).total).toBe(0);
    expect(urls(await search('vacuum', { tags: ['taxonomy/category/news'], lang: 'fi' }))).toEqual(['/uutiset']);
    const all = (await search('vacuum')).total;
    expect((await search('vacuum', {}, ['127.0.0.1:18111'])).total).toBe(all);
    expect((await search('vacuum', {}, ['other.example'])).total).toBe(0);
    expect((await search('vacuum', {}, [])).total).toBe(0);
  });

  it('pages with from/size while total stays the same', async () => {
    const all = await search('plentiful', { size: 100 });
    expect(all.total).toBe(25);
    const seen: string[] = [];
    for (let from = 0; from < 30; from += 7) {
      const r = await search('plentiful', { from, size: 7 });
      expect(r.total).toBe(25);
      expect(r.hits.length).toBe(Math.max(0, Math.min(7, 25 - from)));
      seen.push(...urls(r));
    }
    expect(seen).toEqual(urls(all));
    expect(await search('plentiful', { from: 500 })).toMatchObject({ total: 25, hits: [] });
  });

  it('never returns hidden or noindex pages, and follows a re-crawl and a removal', async () => {
    expect((await search('hiddenword')).total).toBe(0);
    expect((await search('noindexword')).total).toBe(0);
    await sql.tx((tx) => savePages(tx, [page('/p', { title: 'Old title', content: 'oldword' })]));
    await sql.tx((tx) => savePages(tx, [page('/p', { title: 'New title', content: 'newword' })]));
    expect((await search('oldword')).total).toBe(0);
    expect((await search('newword')).hits[0]!.title).toBe('New title');
    await sql.tx((tx) => savePages(tx, [page('/p', { title: 'New title', content: 'newword', showInSearch: false })]));
    expect((await search('newword')).total).toBe(0);
    await sql.tx((tx) => savePages(tx, [page('/p', { title: 'New title', content: 'newword' })]));
    await sql.tx((tx) => removePagesByUrl(tx, [`${BASE}/p`]));
    expect((await search('newword')).total).toBe(0);
  });

  it('highlights about highlight_length characters, escaped, matches in <em>, never the hidden region', async () => {
    const long = (await search('tables', { highlight_length: 40 })).hits[0]!.highlight;
    expect(long).toContain('<em>tables</em>');
    expect(long.replace(/<\/?em>|…/g, '').length).toBeLessThanOrEqual(45);
    const def = (await search('tables')).hits.find((h) => h.url.endsWith('/storage'))!.highlight;
    expect(def.replace(/<\/?em>/g, '').length).toBeGreaterThan(100);
    const r = await search('secretword');
    expect(urls(r)).toEqual(['/nohl']);
    expect(r.hits[0]!.highlight).not.toContain('secretword');
    expect(r.hits[0]!.highlight).toContain('Visible part');
    const html = (await search('templates')).hits[0]!.highlight;
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; friends');
    expect(html).toContain('<em>templates</em>');
    expect(html).not.toContain('<script>');
  });

  it('answers every hostile query string without error, operators being plain words', async () => {
    for (const input of [...HOSTILE, '&|!', 'a & b | !c', "'", "''", '\\', 'x:*', 'a<->b', '<-> <2>', ':*']) {
      const r = await search(input);
      expect(r.total, JSON.stringify(input.slice(0, 40))).toBeGreaterThanOrEqual(0);
    }
    expect((await search('NEAR(vacuum tuples)')).total).toBe(0);
    // Stop words of a page's language are not required (PostgreSQL's own rule; SQLite requires every word).
    expect(urls(await search('vacuum OR tuples'))).toEqual(['/vacuum']);
    expect(urls(await search('(vacuum) AND: ^tuples*'))).toEqual(['/vacuum']);
    expect(urls(await search('-vacuum: "command'))).toEqual(['/vacuum']);
    expect(urls(await search("vacuum' tuples"))).toEqual(['/vacuum']);
    expect(urls(await search('vacuum & !tuples'))).toEqual(['/vacuum']);
    expect((await search('*')).total).toBe(0);
    for (const [input, message] of OVERSIZE) await expect(search(input)).rejects.toThrow(message);
    // Stop words alone find nothing rather than everything.
    expect((await search('the')).total).toBe(0);
    // The tables are all still there.
    expect((await sql.get<{ c: number }>('SELECT count(*) AS c FROM pages'))!.c).toBeGreaterThan(20);
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

  it('refuses empty terms and bad params, naming the key and the rule', async () => {
    const invalid = async (p: Promise<unknown>) => {
      const err = (await p.catch((e: unknown) => e)) as BackendError;
      expect(err).toBeInstanceOf(BackendError);
      expect(err.code).toBe('invalid_input');
      return err.message;
    };
    expect(await invalid(search(' \t'))).toBe('terms: must not be empty');
    expect(await invalid(search('x', { size: 101 }))).toBe('size: must be a whole number from 1 to 100');
    expect(await invalid(search('x', { tags: ['ok', ''] }))).toBe('tags[1]: must be a non-empty string');
  });
});

describe.skipIf(skip)('a broad answer on PostgreSQL (more matches than are re-ranked with titles)', () => {
  const N = RANK_ALL + RANK_BLOCK * 2 + 50;
  let f: PgFixture;
  let sql: PgSql;
  const urls = (r: SearchResults) => r.hits.map((h) => h.url.slice(BASE.length));
  beforeAll(async () => {
    f = pgFixture();
    sql = await f.open();
    const pages: PageWrite[] = [];
    for (let i = 0; i < N; i++) {
      const titled = i % 250 === 249;
      pages.push(
        page(`/b/${i}`, {
          title: titled ? `Broad topic ${i}` : `Page ${i}`,
          content: `filler text ${'broad '.repeat(1 + (i % 5))} number${i}`,
          tags: i % 2 ? ['public', 'odd'] : ['public'],
        }),
      );
    }
    await sql.tx((tx) => savePages(tx, pages));
  }, 60_000);
  afterAll(async () => {
    await f?.close();
  });

  it('lists title matches first, then every other match exactly once, in a stable order, filters applied', async () => {
    const first = await searchPagesPg(sql, 'broad', { size: 10 });
    expect(first.total).toBe(N);
    const titled = Array.from({ length: N }, (_, i) => i)
      .filter((i) => i % 250 === 249)
      .map((i) => `/b/${i}`);
    expect(urls(first).slice(0, titled.length).sort()).toEqual([...titled].sort());
    const seen: string[] = [];
    for (let from = 0; from < N; from += 100)
      seen.push(...urls(await searchPagesPg(sql, 'broad', { from, size: 100 })));
    expect(seen.length).toBe(N);
    expect(new Set(seen).size).toBe(N);
    for (const at of [RANK_BLOCK, RANK_ALL]) {
      expect(urls(await searchPagesPg(sql, 'broad', { from: at - 3, size: 7 }))).toEqual(seen.slice(at - 3, at + 4));
    }
    // Within a block, best ts_rank_cd first.
    const scores = (await searchPagesPg(sql, 'broad', { from: 10, size: 20 })).hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    const odd = await searchPagesPg(sql, 'broad', { from: 0, size: 100, tags: ['odd'] });
    expect(odd.total).toBe(Math.ceil((N - 1) / 2));
    expect(urls(odd).every((u) => Number(u.split('/').at(-1)) % 2 === 1)).toBe(true);
  });
});

describe('highlightHtml', () => {
  it('escapes, marks, cuts at a word boundary and marks where the text goes on', () => {
    const marked = 'Start of a long text with a \u0002match\u0003 <here> and more words after it that go on';
    const text = marked.replace(/[\u0002\u0003]/g, '');
    expect(highlightHtml(marked, 1000, text, text)).toBe(
      'Start of a long text with a <em>match</em> &lt;here&gt; and more words after it that go on',
    );
    const cut = highlightHtml(marked, 40, text, text);
    expect(cut).toBe('Start of a long text with a <em>match</em> &lt;here&gt;…');
    expect(highlightHtml(marked, 30, text, text)).toBe('Start of a long text with a <em>match</em>…'); // never cut before the first match
    expect(highlightHtml(marked, 1000, `Before. ${text}`, text).startsWith('…Start')).toBe(true);
    expect(highlightHtml('', 100, '', '')).toBe('');
  });
});
