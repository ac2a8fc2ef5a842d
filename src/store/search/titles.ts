// Titles, headings, addresses and definitions as the ranking reads them (title-tiers.ts): the query's words against
// a page's title, its headings and its address, each word weighed by its rarity. Pure.
import { DEFINITION_TERM } from '../../model/crawl-writes.js';
import { foldWord } from './fold.js';
import { JOINER_RE, TOKEN_RE, WORD_RE } from './query.js';
import { pathWords } from './path-words.js';
import { stemWord } from './stems.js';

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
 * Whether the page's name in its address (the last part of its path, its extension dropped, its separators too:
 * `/queryplanner.html`, `/git-mailmap.html`, `/mod/mod_rewrite.html`) is the query's words run together, or a compound
 * (one word, no separators) that ends with them (`/gitmailmap.html` for `mailmap`): a page named by its parts as a title names it. 2 for the
 * name itself, 1 for the compound's end (of at least MIN_COMPOUND_TAIL letters), else 0.
 */
export function addressNameLevel(url: string, words: readonly RankWord[]): 0 | 1 | 2 {
  if (!words.length) return 0;
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return 0;
  }
  const last = foldWord((path.replace(/\/+$/, '').split('/').at(-1) ?? '').replace(/\.[^.]*$/, ''));
  const name = last.replace(/[^\p{L}\p{N}]+/gu, '');
  const query = words.map((w) => w.word).join('');
  if (!name || name === 'index') return 0;
  if (name === query) return 2;
  // A compound is one word (`gitmailmap`): `runtime-config-autovacuum` is a path of parts, not a name of them.
  return query.length >= MIN_COMPOUND_TAIL && name === last && name.endsWith(query) ? 1 : 0;
}
/** A compound's end shorter than this is too often a suffix of unrelated names (`-er`, `-ing`, `-log`). */
const MIN_COMPOUND_TAIL = 5;

/**
 * The pattern of an identifier's definition in a page's text: the identifier (its words joined by underscores, as
 * written, any case), not part of a longer one, followed by an opening parenthesis and something in it:
 * "wal_level (enum)", "pg_terminate_backend ( pid integer …", "int sqlite3_prepare_v2(\n sqlite3 *db, …".
 * Documentation defines settings and functions so; a mention does not ("SET wal_level = replica", "wal_level
 * configuration parameter"), nor a function named with empty parentheses, as every page that refers to one writes
 * it ("call sqlite3_prepare_v2() first"), nor a call in an example's code ("rc = sqlite3_prepare_v2(db, …").
 */
export function definitionPattern(words: readonly string[]): RegExp {
  const name = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(`_{1,${MAX_JOINER}}`);
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?<!${CALL_BEFORE})${name} ?\\(${DEFINITION_NOT_EMPTY}`, 'iu');
}

/** The most underscores a definition's name joins two of its words with (`WAL__LEVEL` is wal_level). */
export const MAX_JOINER = 16;

/**
 * What comes before a call, not a definition, of a function in code: an assignment, an argument list or a
 * condition (`rc = sqlite3_prepare_v2(db, …)`, `f(g(x))`, `a, g(x)`), spaces or tabs between.
 */
export const CALL_BEFORE = '[=(,][ \\t]*';

/** What must follow a definition's parenthesis: not its closing one (ASCII white space between them aside). */
export const DEFINITION_NOT_EMPTY = '(?![ \\t\\r\\n]*\\))';

/** An identifier's definition as a store checks it: its pattern (definitionPattern), and its words. */
export interface Definition {
  pattern: RegExp;
  words: readonly string[];
}

// ---------- headings ----------

/** SECTION_NUMBER in folded (lower-case) text. */
const FOLDED_SECTION_NUMBER = /^(?:\p{L}+\s+)?(?:\d+|[ivxlc]+|\p{Ll})(?:\.\d+)*\.\s+/u;
/**
 * Words, and identifiers whose words are joined (TOKEN_RE) kept whole with their joiners as written, a run of
 * underscores as one (`work_mem` is not `maintenance_work_mem`; `os.path` is one unit, and not `os_path`).
 */
function units(foldedText: string): string[] {
  return [...foldedText.matchAll(TOKEN_RE)].map((m) => writtenUnit(m[0]));
}

const writtenUnit = (token: string) => token.replace(/_+/gu, '_');
/** A unit with its joiners as `_`: the form a heading's text is first searched for (headingLevel). */
const underscored = (unit: string) => unit.replace(JOINER_RE, '_');

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
  // Most pages hold the query's words in no heading: a substring test per unit rules them out cheaply. It looks for
  // an identifier's words joined by `_` only (`wal_level`): one typed with a dot or a dash (`os.path`) is found in
  // a heading that writes it so no more than before (headings such as "X-Forwarded-For" or "HTTP/2 in a …" on
  // the pages that merely use the name lost three queries of the Apache manual), and never equals `os_path`.
  const searched = rest.map(underscored);
  if (!rest.length || !searched.every((u) => text.includes(u))) return 0;
  let best: 0 | 1 | 2 = 0;
  for (const line of text.split('\n')) {
    if (!searched.every((u) => line.includes(u))) continue;
    // A definition term counts only when it is the query, and then as a heading holding the words (DEFINITION_TERM).
    const term = line.startsWith(DEFINITION_TERM);
    const bare = (term ? line.slice(DEFINITION_TERM.length) : line).trim().replace(FOLDED_SECTION_NUMBER, '');
    const all = units(bare);
    if (!rest.every((u) => all.includes(u))) continue;
    if (!term) best = 1;
    // A heading's name may end at a separator, or at a parenthesis: "wal_level (enum)" defines `wal_level`.
    for (const name of [all, units(bare.split(TITLE_SEPARATOR)[0]!), units(bare.split(' (')[0]!)]) {
      if (name.length === query.length && name.every((u, i) => u === query[i])) {
        if (!term) return 2;
        best = 1;
      }
    }
  }
  return best;
}

/** The units of a query for headingLevel: each word folded, an identifier whole, with its joiners as typed. */
export function queryUnits(parts: readonly { words: string[]; identifier?: boolean; typed?: string }[]): string[] {
  return parts.flatMap((p) =>
    p.identifier ? [writtenUnit(foldWord(p.typed ?? p.words.join('_')))] : p.words.map(foldWord),
  );
}
