import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RANK_ALL, RANK_BLOCK, searchPages } from '../../../src/store/search-index/search.js';
import { savePages } from '../../../src/store/sqlite/writes.js';
import type { PageMeta, SearchParams, SearchResults } from '../../../src/model/types.js';
import { BASE, searchPage as page } from '../../support/writes.js';
import { HOSTILE, invalid, OVERSIZE } from '../../support/search-input.js';
import { integrityCheck, tempStore, type TempStore } from '../../support/stored.js';
import type { PageWrite } from '../../../src/model/crawl-writes.js';

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
  ...Array.from({ length: 25 }, (_, i) =>
    page(`/common/${i}`, { title: `Common page ${i}`, content: `shared plentiful words number ${i}` }),
  ),
];

let t: TempStore;
const search = (terms: string, params: SearchParams = {}): SearchResults => searchPages(t.store, terms, params);
const urls = (r: SearchResults) => r.hits.map((h) => h.url.slice(BASE.length));

beforeAll(() => {
  t = tempStore(PAGES);
});
afterAll(() => t.close());

describe('search results', () => {
  it('have exactly the documented shape', () => {
    const r = search('vacuum tuples');
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

  it('rank a title match above a body match', () => {
    const r = search('vacuum');
    expect(urls(r)[0]).toBe('/vacuum');
    expect(urls(r)).toContain('/storage'); // body only, and three times at that
    expect(urls(r).indexOf('/vacuum')).toBeLessThan(urls(r).indexOf('/storage'));
    const scores = r.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Each hit's highlight comes from that page's own text.
    for (const h of r.hits) {
      const content = PAGES.find((p) => p.url === h.url)!.content;
      const shown = h.highlight.replace(/<\/?em>/g, '').replace(/^…|…$/g, '');
      expect(content.replace(/\s+/g, ' ')).toContain(shown);
    }
  });

  it('weight superwords like a title', () => {
    expect(urls(search('housekeeping'))).toEqual(['/superwords']);
    expect(urls(search('autovacuum'))).toEqual(['/superwords']);
  });

  it('match the last word as a prefix, and only the last word', () => {
    expect(urls(search('reclai'))).toEqual(['/vacuum']);
    expect(urls(search('garbage reclai'))).toEqual(['/vacuum']);
    expect(search('reclai garbage').total).toBe(0); // "reclai" is not the last word: it must match whole
    expect(urls(search('housek'))).toEqual(['/superwords']);
    expect(urls(search('garbage rec'))).toEqual(['/vacuum']); // 3 letters: the shortest prefix
    expect(search('garbage re').total).toBe(0); // 2 letters: a whole word only
  });

  it('match quoted phrases in order', () => {
    expect(urls(search('"reclaims storage"'))).toEqual(['/vacuum']);
    expect(search('"storage reclaims"').total).toBe(0);
    expect(urls(search('"free space" map'))).toEqual(['/storage']);
  });

  it('require every word (implicit AND)', () => {
    expect(urls(search('vacuum tuples'))).toEqual(['/vacuum']);
    expect(search('vacuum nonexistentword').total).toBe(0);
  });

  it('fold case and diacritics both ways', () => {
    expect(urls(search('cafe creme'))).toEqual(['/cafe']);
    expect(urls(search('CAFÉ BRÛLÉE'))).toEqual(['/cafe']);
    expect(urls(search('resume zurich'))).toEqual(['/cafe']);
    expect(search('brulee').hits[0]!.highlight).toContain('<em>brûlée</em>');
  });

  it('filter by language ("en" also matches "en-US")', () => {
    expect(urls(search('vacuum', { lang: 'fi' }))).toEqual(['/uutiset']);
    expect(urls(search('vacuum', { lang: 'EN' })).sort()).toEqual(['/en-us', '/storage', '/vacuum']);
    expect(urls(search('vacuum', { lang: 'en-us' }))).toEqual(['/en-us']);
    expect(search('vacuum', { lang: 'de' }).total).toBe(0);
  });

  it('filter by tags, all of which must match', () => {
    expect(urls(search('vacuum', { tags: ['taxonomy/category/news'] })).sort()).toEqual(['/en-us', '/uutiset']);
    expect(urls(search('vacuum', { tags: ['taxonomy/category/news', 'public'] })).sort()).toEqual([
      '/en-us',
      '/uutiset',
    ]);
    expect(search('vacuum', { tags: ['taxonomy/category/news', 'post_type/page'] }).total).toBe(0);
    expect(search('vacuum', { tags: ['taxonomy/category'] }).total).toBe(0); // exact tags, not prefixes
    expect(urls(search('vacuum', { tags: ['taxonomy/category/news'], lang: 'fi' }))).toEqual(['/uutiset']);
    expect(search('vacuum', { tags: [] }).total).toBe(search('vacuum').total);
  });

  it('page with from/size while total stays the same', () => {
    const all = search('plentiful', { size: 100 });
    expect(all.total).toBe(25);
    const seen: string[] = [];
    for (let from = 0; from < 30; from += 7) {
      const r = search('plentiful', { from, size: 7 });
      expect(r.total).toBe(25);
      expect(r.hits.length).toBe(Math.max(0, Math.min(7, 25 - from)));
      seen.push(...urls(r));
    }
    expect(seen).toEqual(urls(all));
    expect(new Set(seen).size).toBe(25);
    expect(search('plentiful', { from: 500 })).toMatchObject({ total: 25, hits: [] });
  });

  it('never return hidden (showInSearch false) or noindex pages', () => {
    expect(search('hiddenword').total).toBe(0);
    expect(search('noindexword').total).toBe(0);
    expect(urls(search('vacuum', { size: 100 }))).not.toContain('/hidden');
    expect(urls(search('vacuum', { size: 100 }))).not.toContain('/noindex');
  });

  it('highlight about highlight_length characters with matches in <em>', () => {
    const long = search('tables', { highlight_length: 40 }).hits[0]!.highlight;
    expect(long).toContain('<em>tables</em>');
    expect(long.replace(/<\/?em>/g, '').length).toBeLessThanOrEqual(45);
    const def = search('tables').hits[0]!.highlight;
    expect(def.replace(/<\/?em>/g, '').length).toBeGreaterThan(100);
  });

  it('keep contentNoHighlight text searchable but out of the highlight', () => {
    const r = search('secretword');
    expect(urls(r)).toEqual(['/nohl']);
    expect(r.hits[0]!.highlight).not.toContain('secretword');
    expect(r.hits[0]!.highlight).toContain('Visible part');
  });

  it('answer every hostile query string without error', () => {
    for (const input of HOSTILE) {
      const r = search(input);
      expect(r.total, JSON.stringify(input.slice(0, 40))).toBeGreaterThanOrEqual(0);
    }
    // Operators are plain words: no page says "near" or "or", so these find nothing instead of failing.
    expect(search('NEAR(vacuum tuples)').total).toBe(0);
    expect(search('vacuum OR tuples').total).toBe(0);
    expect(urls(search('(vacuum) AND: ^tuples*'))).toEqual(['/vacuum']);
    expect(urls(search('-vacuum: "command'))).toEqual(['/vacuum']);
    expect(search('*').total).toBe(0);
    for (const [input, message] of OVERSIZE) expect(invalid(() => search(input))).toBe(message);
  });

  it('refuse empty terms and bad params, naming the key and the rule', () => {
    expect(invalid(() => search(''))).toBe('terms: must not be empty');
    expect(invalid(() => search(' \t\n'))).toBe('terms: must not be empty');
    expect(invalid(() => searchPages(t.store, 42 as unknown as string, {}))).toBe('terms: must be a string');
    expect(invalid(() => search('x', { size: 0 }))).toBe('size: must be a whole number from 1 to 100');
    expect(invalid(() => search('x', { size: 101 }))).toBe('size: must be a whole number from 1 to 100');
    expect(invalid(() => search('x', { size: 1.5 }))).toBe('size: must be a whole number from 1 to 100');
    expect(invalid(() => search('x', { from: -1 }))).toBe('from: must be a whole number >= 0');
    expect(invalid(() => search('x', { highlight_length: 5 }))).toBe(
      'highlight_length: must be a whole number from 20 to 1000',
    );
    expect(invalid(() => search('x', { lang: '' }))).toMatch(/^lang: /);
    expect(invalid(() => search('x', { tags: 'news' as unknown as string[] }))).toBe(
      'tags: must be an array of strings',
    );
    expect(invalid(() => search('x', { tags: ['ok', ''] }))).toBe('tags[1]: must be a non-empty string');
    expect(invalid(() => search('x', { sort: 'date' } as SearchParams))).toMatch(/"sort"/);
    expect(invalid(() => search('x', { size: 0, bogus: 1 } as SearchParams))).toMatch(/size: .*; .*"bogus"/);
  });

  it('follow a re-crawl: the page is replaced in the index', () => {
    const u = tempStore([page('/p', { title: 'Old title', content: 'oldword' })]);
    savePages(u.store, [page('/p', { title: 'New title', content: 'newword' })]);
    expect(searchPages(u.store, 'oldword', {}).total).toBe(0);
    expect(searchPages(u.store, 'newword', {}).hits[0]!.title).toBe('New title');
    savePages(u.store, [page('/p', { title: 'New title', content: 'newword', showInSearch: false })]);
    expect(searchPages(u.store, 'newword', {}).total).toBe(0);
    integrityCheck(u.store);
    u.close();
  });
});

describe('broad queries (more matches than one ranking block)', () => {
  const N = RANK_ALL + RANK_BLOCK * 2 + 50;
  let b: TempStore;
  beforeAll(() => {
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
    b = tempStore(pages);
  });
  afterAll(() => b.close());

  it('list title matches first, then every other match exactly once, in a stable order', () => {
    const first = searchPages(b.store, 'broad', { size: 10 });
    expect(first.total).toBe(N);
    const titled = Array.from({ length: N }, (_, i) => i)
      .filter((i) => i % 250 === 249)
      .map((i) => `/b/${i}`);
    expect(urls(first).slice(0, titled.length).sort()).toEqual([...titled].sort());
    const seen: string[] = [];
    for (let from = 0; from < N; from += 100) {
      const r = searchPages(b.store, 'broad', { from, size: 100 });
      expect(r.total).toBe(N);
      seen.push(...urls(r));
    }
    expect(seen.length).toBe(N);
    expect(new Set(seen).size).toBe(N);
    // The same positions give the same pages however the list is paged.
    expect(urls(searchPages(b.store, 'broad', { from: RANK_BLOCK - 3, size: 7 }))).toEqual(
      seen.slice(RANK_BLOCK - 3, RANK_BLOCK + 4),
    );
  });

  it('rank by bm25 within a block: more occurrences in a page of the same length rank higher', () => {
    const r = searchPages(b.store, 'broad', { from: 10, size: 20 });
    const scores = r.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
  });

  it('apply filters to the total and to every page of a broad answer', () => {
    const seen = new Set<string>();
    for (let from = 0; from < N; from += 100) {
      const r = searchPages(b.store, 'broad', { from, size: 100, tags: ['odd'] });
      expect(r.total).toBe(N / 2);
      for (const u of urls(r)) {
        expect(Number(u.split('/').at(-1)) % 2).toBe(1);
        seen.add(u);
      }
    }
    expect(seen.size).toBe(N / 2);
  });
});

describe('a last word that is a broad prefix', () => {
  let z: TempStore;
  beforeAll(() => {
    z = tempStore([
      ...Array.from({ length: 20 }, (_, i) =>
        page(`/z/${i}`, { title: `Page ${i}`, content: `wild ${'zebra '.repeat(1 + (i % 4))}` }),
      ),
      ...Array.from({ length: 10 }, (_, i) => page(`/zs/${i}`, { title: `Herd ${i}`, content: 'wild zebras' })),
      ...Array.from({ length: 10 }, (_, i) => page(`/l/${i}`, { title: `Other ${i}`, content: 'wild lions' })),
    ]);
  });
  afterAll(() => z.close());

  it('still matches every completion, and ranks by the word itself (or its most frequent completion)', () => {
    for (const terms of ['zebr', 'zebra']) {
      const r = searchPages(z.store, terms, { size: 100 });
      expect(r.total).toBe(30);
      // "zebras" has the stem of "zebra" but is rarer (bm25 would weigh it above the word itself): those pages
      // match, after every page with the word itself.
      expect(r.hits.slice(0, 20).every((h) => h.score > 0)).toBe(true);
      expect(
        urls(r)
          .slice(0, 20)
          .every((u) => u.startsWith('/z/')),
      ).toBe(true);
      expect(
        urls(r)
          .slice(20)
          .every((u) => u.startsWith('/zs/')),
      ).toBe(true);
    }
  });

  it('leaves the ranking to the other words of the query', () => {
    const r = searchPages(z.store, 'wild zebr', { size: 100 });
    expect(r.total).toBe(30);
    expect(r.hits.every((h) => h.score > 0)).toBe(true);
    expect(searchPages(z.store, 'wild zebr', { from: 25, size: 10 }).hits).toHaveLength(5);
  });
});
