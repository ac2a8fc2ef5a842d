// Stems at query time: a query word is searched with the index's words of its stem (stemForms), found in the
// index's vocabulary; two words in a row also as the one word they make (joinedForms).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinedForms, stemForms } from '../../../src/store/search-index/completions.js';
import { searchPages } from '../../../src/store/search-index/search.js';
import { savePages } from '../../../src/store/sqlite/writes.js';
import { BASE, searchPage as page } from '../../support/writes.js';
import { tempStore, type TempStore } from '../../support/stored.js';

let t: TempStore;
const pages = (word: string, n: number, lang = 'en') =>
  Array.from({ length: n }, (_, i) =>
    page(`/${word}/${i}`, { title: `Page ${i}`, content: `about ${word}`, language: lang }),
  );
// Read inside a transaction, as a search does.
const forms = (word: string, algorithms = ['english']) =>
  t.store.db.transaction(() => stemForms(t.store, word, algorithms))();

beforeAll(() => {
  t = tempStore([
    ...pages('function', 4),
    ...pages('functions', 3),
    ...pages('functional', 2),
    ...pages('functionally', 1),
    ...pages('happy', 3),
    ...pages('happiness', 1),
    ...pages('attention', 2),
    page('/proxy', { title: 'mod_proxy', content: 'The ProxyPass directive; ProxyPassReverse too.' }),
  ]);
});
afterAll(() => t.close());

describe('the forms a query word is searched with', () => {
  it('are the indexed words of its stem at least as frequent as it, most frequent first, at most two', () => {
    // function 4 pages, functions 3, functional 2, functionally 1: all of the stem "function" in English.
    expect(forms('functions')).toEqual(['function']);
    expect(forms('functional')).toEqual(['function', 'functions']);
    // A rarer form would outrank the word itself in bm25: left out ("function" is typed last, as a prefix, anyway).
    expect(forms('function')).toEqual([]);
  });

  it('finds forms whose stem ends where they differ (happy, happiness: happi)', () => {
    expect(forms('happiness')).toEqual(['happy']);
  });

  it("finds nothing through a stem that shares two letters or fewer with the word (another language's stemmer)", () => {
    // Finnish cuts "attain" to "at": no kin of "attention".
    expect(forms('attain', ['finnish'])).toEqual([]);
    expect(forms('x86')).toEqual([]);
    expect(forms('functions', [])).toEqual([]);
  });

  it('follow the index: a new page brings its words in', () => {
    expect(forms('functionally')).toEqual(['function', 'functions']);
    savePages(t.store, pages('functionalities', 9));
    // "functionalities" stems to "function" too, now the most frequent.
    expect(forms('functionally')).toEqual(['functionalities', 'function']);
  });

  it('joins two words into the one word of the index they make, the last maybe still being typed', () => {
    const joined = (words: string[], prefix: boolean) =>
      t.store.db.transaction(() => joinedForms(t.store, words, prefix))();
    expect(joined(['proxy', 'pass'], false)).toEqual(['proxypass']);
    expect(joined(['proxy', 'pass'], true)).toEqual(['proxypass', 'proxypassreverse']);
    expect(joined(['proxy', 'directive'], false)).toEqual([]);
  });
});

describe('searching with stems', () => {
  const urls = (q: string) => searchPages(t.store, q, { size: 100 }).hits.map((h) => h.url.slice(BASE.length));

  it('matches a word (not typed last) through its forms, the word itself first', () => {
    const found = urls('functions about');
    expect(found.filter((u) => u.startsWith('/functions/'))).toHaveLength(3);
    expect(found.filter((u) => u.startsWith('/function/'))).toHaveLength(4);
    expect(found.slice(0, 3).every((u) => u.startsWith('/functions/'))).toBe(true);
  });

  it('finds a camelCase identifier by its parts typed apart', () => {
    expect(urls('proxy pass')).toEqual(['/proxy']);
    expect(urls('proxy pas')).toEqual(['/proxy']);
  });
});
