// Length normalisation (store/search/title-tiers.ts): among the pages whose titles are read, a page longer than
// their median has its text score lifted, so the page about the words comes before a short page that mentions
// them in passing. The rule on its own, and on both stores (each reads the pages' lengths for it).
import { describe, expect, it } from 'vitest';
import {
  LENGTH_EXPONENT,
  lengthFactor,
  medianLength,
  withTitles,
  type TitleFacts,
  type TitleQuery,
} from '../../../src/store/search/title-tiers.js';
import { DIALECTS, rankingCorpus } from '../../support/stores.js';
import { BASE, searchPage as page } from '../../support/writes.js';

describe('length normalisation, the rule', () => {
  it('lifts a page longer than the median of the pages read, never lowers one', () => {
    expect(medianLength([300, 0, 100, 200])).toBe(200);
    expect(medianLength([100, 400])).toBe(250);
    expect(medianLength([])).toBe(0);
    expect(lengthFactor(1000, 250)).toBeCloseTo(4 ** LENGTH_EXPONENT, 9);
    expect(lengthFactor(1000, 250)).toBeGreaterThan(1);
    expect(lengthFactor(100, 250)).toBe(1);
    expect(lengthFactor(100, 0)).toBe(1);
  });

  it('orders two pages of one tier by their text scores lifted by length, and the tiers still come first', () => {
    const q: TitleQuery = { words: [{ word: 'zip', prefix: false, idf: 2 }], units: ['zip'], algorithms: [] };
    const facts = new Map<number, TitleFacts>([
      [1, { title: 'Notes', headings: null, url: 'http://h/notes.html', defines: null, length: 400 }],
      [2, { title: 'Archives', headings: null, url: 'http://h/archives.html', defines: null, length: 20_000 }],
      [3, { title: 'zip', headings: null, url: 'http://h/zip.html', defines: null, length: 100 }],
    ]);
    const ranked = withTitles(
      [
        { id: 1, score: 10 },
        { id: 2, score: 9.5 },
        { id: 3, score: 1 },
      ],
      () => false,
      (r) => facts.get(r.id)!,
      q,
    );
    // The long page's text score is lifted past the short one's; the page titled the query stays first.
    expect(ranked.map((r) => r.id)).toEqual([3, 2, 1]);
    expect(ranked[1]!.score).toBeCloseTo(9.5 * lengthFactor(20_000, 400), 9);
    expect(ranked[2]!.score).toBe(10);
  });
});

const filler = (n: number) =>
  'The format stores each member with its name, its size and a checksum of its bytes. '.repeat(n);

const PAGES = [
  // Two pages whose titles both hold the query: a short one that mentions it once, and the long one about it.
  page('/library/zipimport.html', {
    title: 'zipimport — Import modules from Zip archives',
    content: `${filler(4)} Modules are imported from zip archives. ${filler(4)}`,
  }),
  page('/library/zipfile.html', {
    title: 'zipfile — Work with ZIP archives',
    content: Array.from({ length: 4 }, () => `${filler(16)} Zip archives are read and written.`).join(' '),
  }),
  // Short pages that name the words in passing (their titles do not).
  ...['bz2', 'lzma', 'shutil'].map((name) =>
    page(`/library/${name}.html`, { title: `${name} — a module`, content: `See also: zip archives. ${filler(1)}` }),
  ),
  // Other pages, so that the query's words are rare.
  ...['tarfile', 'gzip', 'os', 'io', 'csv', 'json', 'sys', 're'].map((name) =>
    page(`/library/${name}.html`, { title: `${name} — another module`, content: filler(6) }),
  ),
];

describe.each(DIALECTS)('length normalisation (%s)', (dialect) => {
  const { order } = rankingCorpus(dialect, PAGES, BASE);

  it('ranks the long page about the words above a short page of the same tier that mentions them', async () => {
    // Without the rule the short page comes first on both stores (bm25 and ts_rank_cd both favour it).
    expect((await order('zip archives')).slice(0, 2)).toEqual(['/library/zipfile.html', '/library/zipimport.html']);
  });
});
