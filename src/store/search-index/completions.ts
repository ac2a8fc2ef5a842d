// The words of the index that start with a given prefix, to search the last word "as a prefix" cheaply.
//
// FTS5 answers `"data"*` by first merging the doclists of every indexed word that starts with "data" into one
// list, in full, for every statement that uses it: tens of milliseconds on a large index, even to read one
// row (a prefix index would avoid that, but it is about 40% of the work of indexing a page). So we look the
// completions up in the index's vocabulary (fts5vocab) and search `("data" OR "database" OR …)`, which FTS5
// reads lazily. Lookups are cached until the index changes.
import { upperBound } from '../search/fold.js';
import type Database from 'better-sqlite3';
import type { Store } from '../sqlite/store.js';
import { stemWord, stemmable } from '../search/stems.js';

/** A prefix stands for at most this many of its completions, the most frequent ones. */
export const MAX_COMPLETIONS = 64;
const CACHE_SIZE = 2000;
/**
 * Words of the vocabulary's ranges kept (about 8 MB): the ranges of two-letter prefixes do not overlap, so this holds
 * every range of a site of up to this many distinct words.
 */
const VOCABULARY_CACHE_WORDS = 100_000;

export interface Completions {
  /** Most frequent first. */
  terms: string[];
  /** The pages each term is on. */
  counts: number[];
  /** Sum of the pages each term is on: at least the number of pages the prefix matches. */
  pages: number;
}

interface Cache {
  vocab: Database.Statement;
  df: Database.Statement;
  structure: Database.Statement;
  averages: Database.Statement;
  /** The index's structure record when the cache was filled; any write to the index changes it. */
  version: Buffer | null;
  /** Pages in the index, from its averages record. */
  rows: number;
  entries: Map<string, Completions>;
  frequencies: Map<string, number>;
  /** stemForms' answers, by stemmers and word. */
  forms: Map<string, string[]>;
  /** vocabulary()'s answers, by limit and prefix, least recently used first; and how many words they hold. */
  vocabularies: Map<string, readonly VocabularyEntry[]>;
  vocabularyWords: number;
}

/** A word of the index and the pages it is on. */
export interface VocabularyEntry {
  readonly term: string;
  readonly pages: number;
}

const caches = new WeakMap<Store, Cache>();

function cacheOf(store: Store): Cache {
  let c = caches.get(store);
  if (!c) {
    store.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.pages_fts_vocab USING fts5vocab(main, pages_fts, 'row')`);
    c = {
      vocab: store.db.prepare('SELECT term, doc FROM temp.pages_fts_vocab WHERE term >= ? AND term < ?').raw(),
      df: store.db.prepare('SELECT doc FROM temp.pages_fts_vocab WHERE term = ?').pluck(),
      structure: store.db.prepare('SELECT block FROM pages_fts_data WHERE id = 10').pluck(),
      averages: store.db.prepare('SELECT block FROM pages_fts_data WHERE id = 1').pluck(),
      version: null,
      rows: 0,
      entries: new Map(),
      frequencies: new Map(),
      forms: new Map(),
      vocabularies: new Map(),
      vocabularyWords: 0,
    };
    caches.set(store, c);
  }
  return c;
}

/** The smallest string greater than every string that starts with `prefix`. */

/** An SQLite varint (what FTS5's averages record starts with: the number of rows in the index). */
function readVarint(b: Buffer): number {
  let v = 0;
  for (let i = 0; i < 9 && i < b.length; i++) {
    if (i === 8) return v * 256 + b[i]!;
    v = v * 128 + (b[i]! & 0x7f);
    if (!(b[i]! & 0x80)) break;
  }
  return v;
}

/** The cache, emptied first when the index changed since it was filled. */
function fresh(store: Store): Cache {
  const c = cacheOf(store);
  const version = (c.structure.get() as Buffer | undefined) ?? null;
  if (!version || !c.version || !version.equals(c.version)) {
    c.entries.clear();
    c.frequencies.clear();
    c.forms.clear();
    c.vocabularies.clear();
    c.vocabularyWords = 0;
    c.version = version;
    const averages = c.averages.get() as Buffer | undefined;
    c.rows = averages ? readVarint(averages) : 0;
  }
  return c;
}

/** Pages in the full-text index. Call inside the search's read transaction. */
export function indexedPages(store: Store): number {
  return fresh(store).rows;
}

/**
 * Indexed words starting with `prefix` (already folded), most frequent first, at most MAX_COMPLETIONS; none
 * when there are none. Call inside the search's read transaction, so the lookup and the search agree.
 */
export function completions(store: Store, prefix: string): Completions {
  const c = fresh(store);
  const hit = c.entries.get(prefix);
  if (hit) {
    // Most recently used last: Map keeps insertion order, so the oldest entry is the first to go.
    c.entries.delete(prefix);
    c.entries.set(prefix, hit);
    return hit;
  }
  const rows = (c.vocab.all(prefix, upperBound(prefix)) as [string, number][])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_COMPLETIONS);
  const found: Completions = {
    terms: rows.map((r) => r[0]),
    counts: rows.map((r) => r[1]),
    pages: rows.reduce((n, r) => n + r[1], 0),
  };
  if (c.entries.size >= CACHE_SIZE) c.entries.delete(c.entries.keys().next().value!);
  c.entries.set(prefix, found);
  return found;
}

/**
 * Words of the index starting with `prefix` (folded) and their pages, in the vocabulary's order, at most `limit`: the
 * candidates of a typo's correction (store/search/near-words.ts). One range of the vocabulary, cached until the index
 * changes (at most VOCABULARY_CACHE_WORDS words): fts5vocab counts each word's pages by reading its whole list of
 * them, so a range costs as much as the index holds of its words (10–20 ms for "co" at 23,000 pages). Read only: the
 * same list serves every search.
 */
export function vocabulary(store: Store, prefix: string, limit: number): readonly VocabularyEntry[] {
  const c = fresh(store);
  if (!prefix) return [];
  const key = `${limit}:${prefix}`;
  const hit = c.vocabularies.get(key);
  if (hit) {
    c.vocabularies.delete(key);
    c.vocabularies.set(key, hit);
    return hit;
  }
  const out: VocabularyEntry[] = [];
  for (const [term, pages] of c.vocab.iterate(prefix, upperBound(prefix)) as Iterable<[string, number]>) {
    out.push({ term, pages });
    if (out.length >= limit) break;
  }
  c.vocabularies.set(key, out);
  c.vocabularyWords += out.length;
  for (const [oldest, words] of c.vocabularies) {
    if (c.vocabularyWords <= VOCABULARY_CACHE_WORDS || oldest === key) break;
    c.vocabularies.delete(oldest);
    c.vocabularyWords -= words.length;
  }
  return out;
}

/** Pages holding `term` (already folded) in any column; 0 when it is not in the index. Call inside the search's read transaction. */
export function documentFrequency(store: Store, term: string): number {
  const c = fresh(store);
  let df = c.frequencies.get(term);
  if (df === undefined) {
    df = (c.df.get(term) as number | undefined) ?? 0;
    if (c.frequencies.size >= CACHE_SIZE) c.frequencies.delete(c.frequencies.keys().next().value!);
    c.frequencies.set(term, df);
  }
  return df;
}

/** A word is also searched as at most this many indexed words of its stem (the most frequent: each costs its doclist in every search). */
export const MAX_STEM_FORMS = 2;
/** A word on more than this many pages is searched without its other forms (see stemForms). */
export const COMMON_WORD_PAGES = 5_000;

/** The longest common prefix of two strings. */
function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

/**
 * The indexed words, other than `word` itself (folded), that share its stem in one of `algorithms` and are on at
 * least as many pages as the word, most frequent first, at most MAX_STEM_FORMS: `functions` → function, `vacuuming`
 * → vacuum. A rarer form is left out: bm25 weighs a term by its rarity, so it would outrank the word itself (and
 * a word typed last already matches the longer words it starts). Found among the completions of the part the word
 * and its stem share, less its last letter (a stem may end where its words differ: `happi` of happy). Call inside
 * the search's read transaction; cached as completions are.
 */
export function stemForms(store: Store, word: string, algorithms: readonly string[]): string[] {
  if (!algorithms.length || !stemmable(word)) return [];
  const c = fresh(store);
  const key = `${algorithms.join(',')}:${word}`;
  const hit = c.forms.get(key);
  if (hit) return hit;
  const df = documentFrequency(store, word);
  const found: [string, number][] = [];
  // A word on more than COMMON_WORD_PAGES pages is searched as typed: its other forms would add pages to an answer
  // already longer than anyone reads, and each is one more long doclist to read in every such search.
  for (const a of df > COMMON_WORD_PAGES ? [] : algorithms) {
    const stem = stemWord(a, word);
    let prefix = commonPrefix(stem, word);
    // Two letters in common are no kinship (a stemmer of another language may cut an English word down to them).
    if (prefix.length < 3) continue;
    if (prefix.length >= 4) prefix = prefix.slice(0, -1);
    const { terms, counts } = completions(store, prefix);
    terms.forEach((t, i) => {
      if (counts[i]! >= df && t !== word && !found.some((f) => f[0] === t) && stemWord(a, t) === stem)
        found.push([t, counts[i]!]);
    });
  }
  const forms = found
    .sort((x, y) => y[1] - x[1])
    .slice(0, MAX_STEM_FORMS)
    .map((f) => f[0]);
  if (c.forms.size >= CACHE_SIZE) c.forms.delete(c.forms.keys().next().value!);
  c.forms.set(key, forms);
  return forms;
}

/**
 * The indexed words that are `words` (folded) written together, the last one maybe still being typed: `proxy pass`
 * → proxypass (and proxypassreverse…). The index holds a camelCase identifier as one word.
 */
export function joinedForms(store: Store, words: readonly string[], prefix: boolean): string[] {
  const joined = words.join('');
  if (prefix) return completions(store, joined).terms.slice(0, MAX_STEM_FORMS);
  return documentFrequency(store, joined) ? [joined] : [];
}
