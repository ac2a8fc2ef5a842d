// The one search suite, run on both stores through the ServiceStore interface: what the shared pipeline
// (src/store/search/pipeline.ts) answers, whichever engine reads the index. Where the stores differ by design
// (docs/postgresql.md: a stop word is not required on PostgreSQL), the case says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageWrite } from '../../../src/model/crawl-writes.js';
import { BackendError } from '../../../src/model/errors.js';
import type { PageMeta, SearchParams, SearchResults } from '../../../src/model/types.js';
import type { ServiceStore } from '../../../src/store/service-store.js';
import { RANK_ALL, RANK_BLOCK } from '../../../src/store/search/pipeline.js';
import { HOSTILE, OVERSIZE } from '../../support/search-input.js';
import { DIALECTS, storeKit, writeThrough, type StoreKit } from '../../support/stores.js';
import { BASE, searchPage as page } from '../../support/writes.js';

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
  page('/html', { title: 'Markup', content: 'Use <script>alert("x")</script> & friends in templates.' }),
  // Ranking: the title that is the query, one holding every word, a heading that is the query, the body only.
  page('/rank/body', {
    title: 'Miscellany',
    content: 'advisory locks advisory locks advisory locks are mentioned here often',
  }),
  page('/rank/exact', { title: 'Advisory Locks', content: 'How to take one.' }),
  page('/rank/words', { title: 'Locks: advisory and other kinds', content: 'An overview.' }),
  page('/rank/heading', {
    title: 'Concurrency control',
    // A page's headings are in its text too.
    content: 'Sections on locking. 13.3.5. Advisory Locks. Take one per session.',
    headings: ['13.3.5. Advisory Locks'],
  }),
  // A definition: the identifier followed by a parenthesis, as a setting's entry names it.
  page('/def/mention', { title: 'Checkpoints', content: 'Raise checkpoint_segments when the log says so.' }),
  page('/def/defined', {
    title: 'Write ahead log settings',
    content: 'Settings of the log. checkpoint_segments (integer) sets how many segments there are.',
  }),
  ...Array.from({ length: 25 }, (_, i) =>
    page(`/common/${i}`, { title: `Common page ${i}`, content: `shared plentiful words number ${i}` }),
  ),
  // A rare word one letter from a frequent one ("shared", on 25 pages).
  page('/typo', { title: 'Misprint', content: 'A shred of evidence.' }),
  // The query's rarer word far from a run of its commoner one: the highlight shows the rarer.
  page('/centred', {
    title: 'Padding',
    content: `${'filler '.repeat(30)}${'pad '.repeat(150)}zymurgy once. ${'pad '.repeat(50)}`,
  }),
  page('/centred-too', { title: 'More padding', content: 'filler text' }),
];

const urls = (r: SearchResults) => r.hits.map((h) => h.url.slice(BASE.length));

async function invalid(p: Promise<unknown>): Promise<string> {
  const err = (await p.catch((e: unknown) => e)) as BackendError;
  expect(err).toBeInstanceOf(BackendError);
  expect(err.code).toBe('invalid_input');
  return err.message;
}

describe.each(DIALECTS)('search (%s)', (dialect) => {
  let kit: StoreKit;
  let store: ServiceStore;
  const search = (terms: string, params: SearchParams = {}, hosts?: string[]): Promise<SearchResults> =>
    store.searchPages(terms, params, hosts ? { hosts } : {});

  beforeAll(async () => {
    kit = storeKit(dialect);
    store = (await kit.fresh()).store;
    await writeThrough(store, { pages: PAGES });
  });
  afterAll(async () => kit.stop());

  it('answers exactly the documented shape', async () => {
    const r = await search('vacuum tuples');
    expect(Object.keys(r).sort()).toEqual(['duration', 'hits', 'total']);
    expect(r.total).toBe(1);
    expect(typeof r.duration).toBe('number');
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

  it('ranks the title that is the query first, then a heading that is, then titles holding every word, then the body', async () => {
    const r = await search('advisory locks');
    expect(urls(r)).toEqual(['/rank/exact', '/rank/heading', '/rank/words', '/rank/body']);
    const scores = r.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const v = await search('vacuum');
    expect(urls(v)[0]).toBe('/vacuum');
    expect(urls(v).indexOf('/vacuum')).toBeLessThan(urls(v).indexOf('/storage'));
  });

  it('ranks the page that defines an identifier above one that mentions it', async () => {
    expect(urls(await search('checkpoint_segments'))).toEqual(['/def/defined', '/def/mention']);
  });

  it('weights superwords like a title, matches the last word as a prefix, phrases in order', async () => {
    expect(urls(await search('housekeeping'))).toEqual(['/superwords']);
    expect(urls(await search('autovacuum'))).toEqual(['/superwords']);
    expect(urls(await search('reclai'))).toEqual(['/vacuum']);
    expect(urls(await search('housek'))).toEqual(['/superwords']);
    expect(urls(await search('garbage rec'))).toEqual(['/vacuum']); // 3 letters: the shortest prefix
    // 2 letters: a whole word only; no page holds "re", so the pages holding "garbage" follow as the fallback.
    expect((await search('garbage re')).hits.every((h) => h.matched_terms?.join() === 'garbage')).toBe(true);
    // Only the last word is a prefix: no page holds both, those holding "garbage" follow as the fallback.
    expect((await search('reclai garbage')).hits.every((h) => h.matched_terms?.join() === 'garbage')).toBe(true);
    expect(urls(await search('"reclaims storage"'))).toEqual(['/vacuum']);
    expect((await search('"storage reclaims"')).total).toBe(0);
    expect(urls(await search('"free space" map'))).toEqual(['/storage']);
    const most = await search('vacuum nonexistentword');
    expect(most.hits.length).toBeGreaterThan(0);
    expect(most.hits.every((h) => h.matched_terms?.join() === 'vacuum')).toBe(true);
  });

  it('folds case and diacritics both ways', async () => {
    expect(urls(await search('cafe creme'))).toEqual(['/cafe']);
    expect(urls(await search('CAFÉ BRÛLÉE'))).toEqual(['/cafe']);
    expect(urls(await search('resume zurich'))).toEqual(['/cafe']);
    expect((await search('brulee')).hits[0]!.highlight).toContain('<em>brûlée</em>');
  });

  it('filters by language ("en" also matches "en-US"), by every tag, and by host', async () => {
    expect(urls(await search('vacuum', { lang: 'fi' }))).toEqual(['/uutiset']);
    expect(urls(await search('vacuum', { lang: 'EN' })).sort()).toEqual(['/en-us', '/storage', '/vacuum']);
    expect(urls(await search('vacuum', { lang: 'en-us' }))).toEqual(['/en-us']);
    expect((await search('vacuum', { lang: 'de' })).total).toBe(0);
    expect(urls(await search('vacuum', { tags: ['taxonomy/category/news'] })).sort()).toEqual(['/en-us', '/uutiset']);
    expect((await search('vacuum', { tags: ['taxonomy/category/news', 'post_type/page'] })).total).toBe(0);
    expect((await search('vacuum', { tags: ['taxonomy/category'] })).total).toBe(0); // exact tags, not prefixes
    expect(urls(await search('vacuum', { tags: ['taxonomy/category/news'], lang: 'fi' }))).toEqual(['/uutiset']);
    const all = (await search('vacuum')).total;
    expect((await search('vacuum', { tags: [] })).total).toBe(all);
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
    expect(new Set(seen).size).toBe(25);
    expect(await search('plentiful', { from: 500 })).toMatchObject({ total: 25, hits: [] });
  });

  it('never returns hidden or noindex pages, and follows a re-crawl', async () => {
    expect((await search('hiddenword')).total).toBe(0);
    expect((await search('noindexword')).total).toBe(0);
    expect(urls(await search('vacuum', { size: 100 }))).not.toContain('/hidden');
    expect(urls(await search('vacuum', { size: 100 }))).not.toContain('/noindex');
    // Asked before the word is on any page (SQLite keeps the words it compares with until the index changes).
    expect((await search('newwrod')).corrected_terms).toBeUndefined();
    await writeThrough(store, { pages: [page('/p', { title: 'Old title', content: 'oldword' })] }, 2);
    await writeThrough(store, { pages: [page('/p', { title: 'New title', content: 'newword' })] }, 3);
    expect((await search('oldword')).total).toBe(0);
    expect((await search('newword')).hits[0]!.title).toBe('New title');
    // A re-crawl's new word is a word typos are corrected to; an old one, on no page now, is not.
    expect((await search('newwrod')).corrected_terms).toEqual([{ from: 'newwrod', to: 'newword' }]);
    expect((await search('oldwrod')).corrected_terms).toBeUndefined();
    // Nor is a word of a hidden or noindex page: it never shows.
    expect((await search('hiddenwrod')).corrected_terms).toBeUndefined();
    expect((await search('noindexwrod')).corrected_terms).toBeUndefined();
    await writeThrough(
      store,
      { pages: [page('/p', { title: 'New title', content: 'newword', showInSearch: false })] },
      4,
    );
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
    // Centred on the query's rarest word, not on the densest run of its others.
    const centred = (await search('filler zymurgy', { highlight_length: 60 })).hits[0]!.highlight;
    expect(centred).toContain('<em>zymurgy</em>');
    expect(centred).not.toContain('filler');
    // Each hit's highlight comes from that page's own text.
    for (const h of (await search('vacuum')).hits) {
      const content = PAGES.find((p) => p.url === h.url)!.content;
      const shown = h.highlight.replace(/<\/?em>/g, '').replace(/^…|…$/g, '');
      expect(content.replace(/\s+/g, ' ')).toContain(shown);
    }
  });

  it('answers every hostile query string without error, operators being plain words', async () => {
    for (const input of [...HOSTILE, '&|!', 'a & b | !c', "'", "''", '\\', 'x:*', 'a<->b', '<-> <2>', ':*']) {
      const r = await search(input);
      expect(r.total, JSON.stringify(input.slice(0, 40))).toBeGreaterThanOrEqual(0);
    }
    expect((await search('NEAR(vacuum tuples)')).hits.map((h) => h.matched_terms)).toEqual([['vacuum', 'tuples']]);
    // "or" is a stop word of English: PostgreSQL does not require it; SQLite requires every word, then falls back.
    const or = await search('vacuum OR tuples');
    expect(urls(or)).toEqual(['/vacuum']);
    expect(or.hits[0]!.matched_terms).toEqual(dialect === 'pg' ? undefined : ['vacuum', 'tuples']);
    expect(urls(await search('(vacuum) AND: ^tuples*'))).toEqual(['/vacuum']);
    expect(urls(await search('-vacuum: "command'))).toEqual(['/vacuum']);
    expect((await search('*')).total).toBe(0);
    for (const [input, message] of OVERSIZE) expect(await invalid(search(input))).toBe(message);
  });

  it('counts the matches by language, tag and first folder when asked, and filters by path prefix', async () => {
    const r = await search('vacuum', { facets: ['lang', 'tags', 'path'] });
    expect(r.facets!.lang).toContainEqual({ value: 'en-us', count: 1 });
    expect(r.facets!.lang).toContainEqual({ value: 'fi', count: 1 });
    expect(r.facets!.lang!.reduce((n, f) => n + f.count, 0)).toBe(r.total);
    expect(r.facets!.tags).toContainEqual({ value: 'public', count: 4 });
    expect(r.facets!.path).toEqual([{ value: '/', count: r.total }]);
    expect(Object.keys((await search('plentiful', { facets: ['path'] })).facets!)).toEqual(['path']);
    expect((await search('plentiful', { facets: ['path'] })).facets!.path).toEqual([{ value: '/common/', count: 25 }]);
    expect((await search('vacuum')).facets).toBeUndefined();
    expect((await search('plentiful', { path_prefix: '/common/' })).total).toBe(25);
    expect((await search('plentiful', { path_prefix: '/common/1' })).total).toBe(11); // 1, 10–19
    expect((await search('plentiful', { path_prefix: '/rank/' })).total).toBe(0);
    expect(urls(await search('locks', { path_prefix: '/rank/e' }))).toEqual(['/rank/exact']);
  });

  it('falls back to the pages holding most of the words, after every full match, marked with matched_terms', async () => {
    const r = await search('advisory locks qqzzxxvv');
    expect(r.total).toBeGreaterThanOrEqual(4);
    expect(urls(r).slice(0, 4)).toEqual(['/rank/exact', '/rank/heading', '/rank/words', '/rank/body']);
    for (const h of r.hits) expect(h.matched_terms).toEqual(['advisory', 'locks']);
    // Full matches carry no matched_terms.
    expect((await search('advisory locks')).hits.every((h) => h.matched_terms === undefined)).toBe(true);
    // A query of only words in no page finds nothing, and says so plainly.
    expect(await search('qqzzxxvv wwyyuu')).toMatchObject({ total: 0, hits: [] });
  });

  it('corrects a word in no page to the nearest word of the index, and suggests a frequent near word', async () => {
    const r = await search('garbaje');
    expect(r.corrected_terms).toEqual([{ from: 'garbaje', to: 'garbage' }]);
    expect(urls(r)).toEqual(['/vacuum']);
    expect(r.hits[0]!.highlight).toContain('<em>Garbage</em>');
    const d = await search('shred');
    expect(urls(d)).toEqual(['/typo']);
    expect(d.did_you_mean).toBe('shared');
    // Among the words of the query, only the one in no page is corrected; with the others it finds the page.
    expect(await search('garbaje tuples')).toMatchObject({ corrected_terms: [{ from: 'garbaje', to: 'garbage' }] });
    expect((await search('vacuum')).corrected_terms).toBeUndefined();
    // Too far from every word (or too short to correct): nothing is made up.
    expect(await search('qqzzxxvv')).toMatchObject({ total: 0, hits: [] });
    expect((await search('qqzzxxvv')).corrected_terms).toBeUndefined();
  });

  it('answers a query of only common or stop words without error', async () => {
    for (const terms of ['the', 'the of and', 'a']) expect((await search(terms)).total).toBeGreaterThanOrEqual(0);
  });

  it('refuses empty terms and bad params, naming the key and the rule', async () => {
    expect(await invalid(search('x', { facets: ['color' as 'lang'] }))).toBe(
      'facets[0]: must be one of lang, tags, path',
    );
    expect(await invalid(search('x', { facets: 'lang' as unknown as ['lang'] }))).toMatch(
      /^facets: must be an array of facet names \(lang, tags, path\)/,
    );
    expect(await invalid(search('x', { path_prefix: 'docs' }))).toBe(
      'path_prefix: must be a path starting with / (such as /docs/), without spaces, ? or #',
    );
    expect(await invalid(search('x', { path_prefix: '/a b' }))).toMatch(/^path_prefix: /);
    expect(await invalid(search(''))).toBe('terms: must not be empty');
    expect(await invalid(search(' \t\n'))).toBe('terms: must not be empty');
    expect(await invalid(store.searchPages(42 as unknown as string, {}))).toBe('terms: must be a string');
    expect(await invalid(search('x', { size: 0 }))).toBe('size: must be a whole number from 1 to 100');
    expect(await invalid(search('x', { size: 101 }))).toBe('size: must be a whole number from 1 to 100');
    expect(await invalid(search('x', { from: -1 }))).toBe('from: must be a whole number >= 0');
    expect(await invalid(search('x', { highlight_length: 5 }))).toBe(
      'highlight_length: must be a whole number from 20 to 1000',
    );
    expect(await invalid(search('x', { lang: '' }))).toMatch(/^lang: /);
    expect(await invalid(search('x', { tags: ['ok', ''] }))).toBe('tags[1]: must be a non-empty string');
    expect(await invalid(search('x', { sort: 'date' } as SearchParams))).toMatch(/"sort"/);
  });
});

describe.each(DIALECTS)('a broad answer (%s): more matches than are ranked whole', (dialect) => {
  const N = RANK_ALL + RANK_BLOCK * 2 + 50;
  let kit: StoreKit;
  let store: ServiceStore;
  beforeAll(async () => {
    kit = storeKit(dialect);
    store = (await kit.fresh()).store;
    const pages: PageWrite[] = [];
    for (let i = 0; i < N; i++) {
      // Every page has "broad" in its text; a few, late in index order, also in their title.
      const titled = i % 250 === 249;
      pages.push(
        page(`/b/${i}`, {
          title: titled ? `Broad topic ${i}` : `Page ${i}`,
          content: `filler text ${'broad '.repeat(1 + (i % 5))} number${i}`,
          tags: i % 2 ? ['public', 'odd'] : ['public'],
        }),
      );
    }
    await writeThrough(store, { pages });
  }, 60_000);
  afterAll(async () => kit.stop());

  it('lists title matches first, then every other match exactly once, in a stable order, filters applied', async () => {
    const first = await store.searchPages('broad', { size: 10 });
    expect(first.total).toBe(N);
    const titled = Array.from({ length: N }, (_, i) => i)
      .filter((i) => i % 250 === 249)
      .map((i) => `/b/${i}`);
    expect(urls(first).slice(0, titled.length).sort()).toEqual([...titled].sort());
    const seen: string[] = [];
    for (let from = 0; from < N; from += 100) {
      const r = await store.searchPages('broad', { from, size: 100 });
      expect(r.total).toBe(N);
      seen.push(...urls(r));
    }
    expect(seen.length).toBe(N);
    expect(new Set(seen).size).toBe(N);
    // The same positions give the same pages however the list is paged.
    for (const at of [RANK_BLOCK, RANK_ALL])
      expect(urls(await store.searchPages('broad', { from: at - 3, size: 7 }))).toEqual(seen.slice(at - 3, at + 4));
    // Within a block, best text score first.
    const scores = (await store.searchPages('broad', { from: 10, size: 20 })).hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    const odd = new Set<string>();
    for (let from = 0; from < N; from += 100) {
      const r = await store.searchPages('broad', { from, size: 100, tags: ['odd'] });
      expect(r.total).toBe(N / 2);
      for (const u of urls(r)) {
        expect(Number(u.split('/').at(-1)) % 2).toBe(1);
        odd.add(u);
      }
    }
    expect(odd.size).toBe(N / 2);
  });
});
