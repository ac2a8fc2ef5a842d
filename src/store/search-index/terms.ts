// Titles and headings as the ranking reads them, and the SQL functions of the index's migrations.
//
// The index keeps every word as written (unicode61: `pg_dump` is the words `pg` `dump`, `ProxyPass` the word
// `proxypass`). extraTerms (a page's stems and camelCase parts, as the SQL function svc_terms) is what migration 4
// indexed in columns of their own; migration 13 dropped them (stems are found at query time, see stems.ts), and
// the function stays only so that a database older than migration 4 can still be brought up to date.
import type Database from 'better-sqlite3';
import { foldWord } from './completions.js';
import { JOINER_RE, TOKEN_RE, WORD_RE } from './query.js';
import { pathWords } from './path-words.js';
import { algorithmFor, stemWord } from './stems.js';

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

// ---------- titles ----------

/** Where a title's own name ends and the site's name or a section begins: "mod_rewrite - Apache HTTP Server". */
const TITLE_SEPARATOR = /\s+[-|–—·:]\s+|:\s+/u;
/** A leading section number: "9.16. ", "Chapter 9. ", "Part II. ", "F.4. ". */
const SECTION_NUMBER = /^(?:\p{L}+\s+)?(?:\d+|[IVXLC]+|\p{Lu})(?:\.\d+)*\.\s+/u;

function foldedWords(text: string): string[] {
  return [...foldWord(text).matchAll(WORD_RE)].map((m) => m[0]);
}

/** The word lists a query must equal to match a title exactly: the whole title and its leading part, without a section number (exactTitleLevel and titleScore take them or the title). */
export function titleNames(title: string): string[][] {
  const bare = title.trim().replace(SECTION_NUMBER, '');
  const names = [foldedWords(bare)];
  const lead = bare.split(TITLE_SEPARATOR)[0]!;
  if (lead !== bare) names.push(foldedWords(lead));
  return names.filter((n) => n.length > 0);
}

/**
 * The parts of a title between its separators after the first (titleNames has the first): a title may put the
 * page's own name after the site's or a series' ("Apache HTTP Server Tutorial: .htaccess files", "abc — Abstract
 * Base Classes — Python 3.11 documentation"), and a query that is one of them names the page as well.
 */
export function titleSegments(title: string): string[][] {
  const parts = title.trim().replace(SECTION_NUMBER, '').split(TITLE_SEPARATOR);
  return parts
    .slice(1)
    .map(foldedWords)
    .filter((n) => n.length > 0);
}

/** A word of the query as the title ranking sees it: folded, maybe a prefix, with its inverse document frequency. */
export interface RankWord {
  word: string;
  prefix: boolean;
  idf: number;
}

/** How a title word answers a query word: 1 the same word, STEM_MATCH the same stem, PREFIX_MATCH a longer word (typing), else 0. */
const STEM_MATCH = 0.8;
const PREFIX_MATCH = 0.5;
function wordMatch(q: RankWord, t: string, algorithms: readonly string[]): number {
  if (q.word === t) return 1;
  if (algorithms.some((a) => stemWord(a, q.word) === stemWord(a, t))) return STEM_MATCH;
  return q.prefix && t.startsWith(q.word) ? PREFIX_MATCH : 0;
}

/**
 * How exactly the query is the title's name (see titleNames): 2 word for word, 1 when the last word, typed as
 * a prefix, only starts the title's last word, 0 when it is not (a title with a word of the same stem is no
 * exact title: exact words rank above stems).
 */
export function exactTitleLevel(title: string | string[][], words: RankWord[]): 0 | 1 | 2 {
  if (!words.length) return 0;
  let best: 0 | 1 | 2 = 0;
  for (const name of typeof title === 'string' ? [...titleNames(title), ...titleSegments(title)] : title) {
    if (name.length !== words.length) continue;
    let level: 0 | 1 | 2 = 2;
    for (let i = 0; i < name.length && level; i++) {
      const m = wordMatch(words[i]!, name[i]!, []);
      if (!m) level = 0;
      else if (m < 1) level = 1;
    }
    if (level > best) best = level;
  }
  return best;
}

/** Titles are short: bm25's saturation and length normalization, for a title of TITLE_AVG_WORDS words. */
const TITLE_K1 = 1.2;
const TITLE_B = 0.75;
const TITLE_AVG_WORDS = 5;

/**
 * bm25 of the title alone (as a search library scores a title field): the query words the title holds, by
 * their idf, an inexact match counting less, normalized by the length of the title's name. The whole row's bm25 that
 * FTS5 computes normalizes by the page's length, so a title word counts for little on a long page.
 */
export function titleScore(title: string | string[][], words: RankWord[], algorithms: readonly string[]): number {
  const names = typeof title === 'string' ? titleNames(title) : title;
  const tw = names[0];
  if (!tw) return 0;
  // The length is the title's own name's: a site's name after it is on every page.
  const length = names.at(-1)!.length;
  const norm = (TITLE_K1 + 1) / (1 + TITLE_K1 * (1 - TITLE_B + (TITLE_B * length) / TITLE_AVG_WORDS));
  let score = 0;
  for (const q of words) {
    let m = 0;
    for (const t of tw) if (m < 1) m = Math.max(m, wordMatch(q, t, algorithms));
    score += q.idf * m * norm;
  }
  return score;
}

/**
 * Whether the path of a page's address names every word of the query (as the title ranking matches words: the
 * same word, the same stem, or a longer word for one being typed): `/functions-window.html` for `window functions`.
 */
export function pathHolds(url: string, words: RankWord[], algorithms: readonly string[]): boolean {
  if (!words.length) return false;
  const names = foldedWords(pathWords(url));
  return words.every((q) => names.some((t) => wordMatch(q, t, algorithms) > 0));
}

/**
 * The pattern of an identifier's definition in a page's text: the identifier (its words joined by underscores, as
 * written, any case), not part of a longer one, followed by an opening parenthesis: "wal_level (enum)",
 * "pg_terminate_backend ( pid integer …". Documentation defines settings and functions so; a mention does not
 * ("SET wal_level = replica", "wal_level configuration parameter").
 */
export function definitionPattern(words: readonly string[]): RegExp {
  const name = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('_+');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${name} ?\\(`, 'iu');
}

// ---------- headings ----------

/** SECTION_NUMBER in folded (lower-case) text. */
const FOLDED_SECTION_NUMBER = /^(?:\p{L}+\s+)?(?:\d+|[ivxlc]+|\p{Ll})(?:\.\d+)*\.\s+/u;
/**
 * Words, and identifiers whose words are joined (TOKEN_RE) kept whole, their joiners as `_` (`work_mem` is not
 * `maintenance_work_mem`; `os.path` is one unit).
 */
function units(foldedText: string): string[] {
  return [...foldedText.matchAll(TOKEN_RE)].map((m) => m[0].replace(JOINER_RE, '_'));
}

/**
 * How a page's headings (one a line) answer the query, given as its units (folded words; an identifier's words
 * joined by `_`): 2 when a heading's name (as titleNames reads a title: no section number, or its part before a
 * separator or a parenthesis) is the query word for word, 1 when a heading holds every unit of the query the
 * page's title does not, else 0. A title that holds every unit alone is the title tiers' business. A heading says
 * what a part of the page is about: "28.2.3. pg_stat_activity", "13.3.5. Advisory Locks".
 */
export function headingLevel(headings: string, query: readonly string[], title = ''): 0 | 1 | 2 {
  if (!headings || !query.length) return 0;
  const text = foldWord(headings);
  // A heading is read under the page's title ("INSERT" › "ON CONFLICT Clause" answers `insert on conflict`).
  const titleUnits = units(foldWord(title));
  const rest = query.filter((u) => !titleUnits.includes(u));
  // Most pages hold the query's words in no heading: a substring test per unit rules them out cheaply.
  if (!rest.length || !rest.every((u) => text.includes(u))) return 0;
  let best: 0 | 1 | 2 = 0;
  for (const line of text.split('\n')) {
    if (!rest.every((u) => line.includes(u))) continue;
    const bare = line.trim().replace(FOLDED_SECTION_NUMBER, '');
    const all = units(bare);
    if (!rest.every((u) => all.includes(u))) continue;
    best = 1;
    // A heading's name may end at a separator, or at a parenthesis: "wal_level (enum)" defines `wal_level`.
    for (const name of [all, units(bare.split(TITLE_SEPARATOR)[0]!), units(bare.split(' (')[0]!)]) {
      if (name.length === query.length && name.every((u, i) => u === query[i])) return 2;
    }
  }
  return best;
}

/** The units of a query for headingLevel: each word folded, an identifier's words joined by `_`. */
export function queryUnits(parts: readonly { words: string[]; identifier?: boolean }[]): string[] {
  return parts.flatMap((p) => (p.identifier ? [foldWord(p.words.join('_'))] : p.words.map(foldWord)));
}
