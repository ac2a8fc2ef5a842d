// The SQL functions of the FTS5 index's migrations and triggers (a page's extra terms, its stemmer, its address's words).
//
// The index keeps every word as written (unicode61: `pg_dump` is the words `pg` `dump`, `ProxyPass` the word
// `proxypass`). extraTerms (a page's stems and camelCase parts, as the SQL function svc_terms) is what migration 4
// indexed in columns of their own; migration 13 dropped them (stems are found at query time, see stems.ts), and
// the function stays only so that a database older than migration 4 can still be brought up to date.
import type Database from 'better-sqlite3';
import { pathWords } from '../search/path-words.js';
import { algorithmFor, stemWord } from '../search/stems.js';

/** A word with a lower-case letter followed by an upper-case one: ProxyPass, DirectoryIndex, maxConnections. */
const CAMEL_RE = /\p{Ll}\p{Lu}/u;
const CAMEL_PART_RE = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+/gu;
/** A huge page adds at most this many extra terms (distinct words of real pages are a few thousand)... */
const MAX_TERMS = 20_000;
/** ...read from at most this many distinct words (as written) of its first MAX_TEXT_CHARS characters (a manual's longest page has ~300,000). */
const MAX_WORDS = 50_000;
const MAX_TEXT_CHARS = 1_000_000;

/**
 * The extra terms of one word as written, in one algorithm (null: none): its stem when it differs, and the
 * parts of a camelCase word with their stems. Cached per algorithm and word: a site's pages share most of their
 * words, so a page's terms are mostly lookups (stemming and the camelCase split were two thirds of a page's
 * indexing time).
 */
const NO_TERMS: readonly string[] = [];
const WORD_TERMS_LIMIT = 200_000;
const wordTerms = new Map<string, Map<string, readonly string[]>>();
function termsOfWord(word: string, algorithm: string | null): readonly string[] {
  const key = algorithm ?? '';
  let cache = wordTerms.get(key);
  if (!cache) wordTerms.set(key, (cache = new Map()));
  let out = cache.get(word);
  if (out) return out;
  const found: string[] = [];
  const lower = word.toLowerCase();
  const addStem = (w: string) => {
    if (!algorithm) return;
    const stem = stemWord(algorithm, w);
    if (stem !== w && stem && !found.includes(stem)) found.push(stem);
  };
  addStem(lower);
  if (CAMEL_RE.test(word)) {
    for (const p of word.matchAll(CAMEL_PART_RE)) {
      const part = p[0].toLowerCase();
      if (part === lower) continue;
      if (!found.includes(part)) found.push(part);
      addStem(part);
    }
  }
  out = found.length ? found : NO_TERMS;
  if (cache.size >= WORD_TERMS_LIMIT) cache.clear();
  cache.set(word, out);
  return out;
}

/**
 * The extra terms of a text, space-separated, each once: the stems that differ from their word (in the
 * language's algorithm; none without one) and the parts of camelCase words with their stems. Order is of no
 * consequence (no phrase is matched against them).
 */
export function extraTerms(text: string, language: string | null): string {
  if (!text) return '';
  if (text.length > MAX_TEXT_CHARS) text = text.slice(0, MAX_TEXT_CHARS);
  const algorithm = algorithmFor(language);
  const out = new Set<string>();
  // Each distinct word once (as written: its case tells camelCase apart).
  for (const w of distinctWords(text, MAX_WORDS)) {
    for (const t of termsOfWord(w, algorithm)) out.add(t);
    if (out.size >= MAX_TERMS) break;
  }
  return [...out].join(' ');
}

/** Whether a UTF-16 code unit below 0x10000 is a word character (WORD_RE): 1 yes, 2 no, 0 not looked up yet. */
const BMP_WORD = new Uint8Array(0x10000);
for (let c = 0; c < 128; c++) BMP_WORD[c] = /[0-9A-Za-z]/.test(String.fromCharCode(c)) ? 1 : 2;
const WORD_CHAR = /^[\p{L}\p{N}\p{M}\p{Co}]$/u;

/**
 * The distinct words of a text as WORD_RE cuts them, in order of first appearance, at most `max`. A scan of char
 * codes with a table: the same words as text.matchAll(WORD_RE), in about half the time on a long page.
 */
export function distinctWords(text: string, max: number): Set<string> {
  const words = new Set<string>();
  const n = text.length;
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    let width = 1;
    let word: boolean;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: its code point decides.
      width = 2;
      word = WORD_CHAR.test(text.slice(i, i + 2));
    } else {
      let k = BMP_WORD[c]!;
      if (k === 0) BMP_WORD[c] = k = WORD_CHAR.test(String.fromCharCode(c)) ? 1 : 2;
      word = k === 1;
    }
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      words.add(text.slice(start, i));
      start = -1;
      if (words.size >= max) return words;
    }
    i += width - 1;
  }
  if (start >= 0) words.add(text.slice(start));
  return words;
}

/** The SQL functions the index's triggers call; every connection that writes pages registers them. */
export function registerTermFunctions(db: Database.Database): void {
  db.function('svc_terms', { deterministic: true }, (language: unknown, text: unknown) =>
    extraTerms(typeof text === 'string' ? text : '', typeof language === 'string' ? language : null),
  );
  db.function('svc_stemmer', { deterministic: true }, (language: unknown) =>
    algorithmFor(typeof language === 'string' ? language : null),
  );
  db.function('svc_path_words', { deterministic: true }, (url: unknown) =>
    pathWords(typeof url === 'string' ? url : ''),
  );
}
