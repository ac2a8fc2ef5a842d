// What only SQLite's engine does: a last word that is a broad prefix ranked by the word itself. The shared cases
// run on both stores in test/store/search/search.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchPages } from '../../../src/store/search-index/search.js';
import type { SearchResults } from '../../../src/model/types.js';
import { BASE, searchPage as page } from '../../support/writes.js';
import { tempStore, type TempStore } from '../../support/stored.js';

const urls = (r: SearchResults) => r.hits.map((h) => h.url.slice(BASE.length));

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
