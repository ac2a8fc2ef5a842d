// Typo candidates, pure: the nearest words of a vocabulary (near-words.ts), and the words as written a page write
// adds to PostgreSQL's list of them (pg/search-words.ts).
import { describe, expect, it } from 'vitest';
import type { PageWrite } from '../../../src/model/crawl-writes.js';
import { pageWords, SeenWords } from '../../../src/store/pg/search-words.js';
import { MAX_NEAR, nearestWord, withinEdits } from '../../../src/store/search/near-words.js';
import { pathWords } from '../../../src/store/search/path-words.js';
import { searchPage } from '../../support/writes.js';

describe('near words', () => {
  it('keeps the candidates within the edits, nearest first, and picks the one on most pages among the nearest', () => {
    const near = withinEdits('garbaje', [{ term: 'garbage' }, { term: 'garage' }, { term: 'gargle' }, { term: 'ga' }]);
    expect(near.map((c) => c.term)).toEqual(['garbage']);
    // Pages counted later (PostgreSQL): unknown counts as none.
    expect(nearestWord('garbaje', near)).toBeNull();
    expect(nearestWord('garbaje', [{ term: 'garbage', pages: 3 }])).toEqual({ term: 'garbage', pages: 3 });
    expect(nearestWord('shred', [{ term: 'shared', pages: 25 }], 10)).toEqual({ term: 'shared', pages: 25 });
    expect(nearestWord('shred', [{ term: 'shared', pages: 5 }], 10)).toBeNull();
    // At most MAX_NEAR are kept, so counting them stays bounded.
    const many = Array.from({ length: 100 }, (_, i) => ({ term: `garbag${String.fromCharCode(97 + (i % 26))}` }));
    expect(withinEdits('garbagex', many).length).toBeLessThanOrEqual(MAX_NEAR);
  });
});

describe('words as written of a page write (PostgreSQL)', () => {
  const page = (over: Partial<PageWrite>) => searchPage('/docs/git-mailmap.html', over);

  it('lists the searchable pages’ words once, folded, starting with a letter', () => {
    const words = pageWords(
      [
        page({ title: 'Café Crème', content: 'The 2nd run-time option, run again: café. x'.padEnd(50, ' ') }),
        page({ title: 'Hidden', content: 'secretword', showInSearch: false }),
      ],
      pathWords,
    );
    expect(words).toEqual(
      expect.arrayContaining(['cafe', 'creme', 'run', 'time', 'option', 'again', 'docs', 'mailmap']),
    );
    expect(words).not.toContain('2nd');
    expect(words).not.toContain('secretword');
    expect(new Set(words).size).toBe(words.length);
  });

  it('sends each word once per writer', () => {
    const seen = new SeenWords();
    expect(seen.unseen(['a', 'b'])).toEqual(['a', 'b']);
    expect(seen.unseen(['b', 'c'])).toEqual(['c']);
  });
});
