// The title tiers both stores rank by (SQLite's bm25 and PostgreSQL's ts_rank_cd alike): which matches have their
// title read, and how much a title, heading, address or definition lifts a match above the text score.
import {
  addressNameLevel,
  exactTitleLevel,
  headingLevel,
  pathHolds,
  titleNames,
  titleScore,
  titleSegments,
  type RankWord,
} from './titles.js';

/**
 * Tiers above the score: a page whose title is the query word for word (or its leading part before " - ", " | ",
 * …; see terms.ts) comes first, then one whose title is the query up to a last word still being typed, then
 * pages whose title or superwords hold every word of the query, then the others.
 */
const TIER_EXACT_TITLE = 3;
const TIER_LOOSE_TITLE = 2;
const TIER_TITLE = 1;
/**
 * Headings (h1–h6) are the titles of a page's parts: a heading that is the query word for word ranks the page as
 * a title that is the query up to its last word (the manual's "13.3.5. Advisory Locks" answers `advisory locks`),
 * and a heading holding every word of the query adds half a tier.
 */
const TIER_EXACT_HEADING = 2;
const TIER_HEADING_BONUS = 0.5;
/**
 * A heading that is the query on more than this many of the pages read is a kind of section many pages have
 * ("Environment Variables", "Examples" on every module's page), not the topic of one: it counts as a heading that
 * holds the query, below a page whose title does.
 */
const SHARED_HEADING_PAGES = 1;
/**
 * Two pages may be titled exactly the query (a tutorial's "Window Functions" and the reference's): the one whose
 * address also names every word of the query (`/functions-window.html`) comes first.
 */
const TIER_PATH_BONUS = 0.25;
/**
 * A query that is one identifier (`wal_level`, `pg_terminate_backend`): a page whose text names it followed by a
 * parenthesis defines it (a setting's "wal_level (enum)", a function's signature) and ranks as if a heading held it.
 */
const TIER_DEFINITION_BONUS = 0.5;
/**
 * A page whose address names it by the query (`/queryplanner.html` for `query planner`, `/rtree.html` for `rtree`)
 * ranks as if a heading held the query; a compound name that ends with it (`/gitmailmap.html` for `mailmap`), half
 * that. Only when its title is not the query already (the quarter-tier above decides between those).
 */
const TIER_ADDRESS_NAME = [0, 0.25, 0.5] as const;
const TIER_SCORE = 1000;
/** What the title tier alone adds (a match whose title holds every word, its title not read). */
export const TITLE_TIER_SCORE = TIER_TITLE * TIER_SCORE;
/** How much the title's own score (terms.ts titleScore) adds to the page's text score. */
const TITLE_BOOST = 2;
/** Pages whose title is read and scored: the best ranked by text score, and those whose title holds every word. */
const TITLE_CHECKS = 20;
export const TITLE_SET_CHECKS = 200;

export interface Ranked {
  id: number;
  /** Higher is better. */
  score: number;
}

export interface TitleQuery {
  words: RankWord[];
  /** The query as headingLevel takes it. */
  units: string[];
  algorithms: readonly string[];
}

/** What is read of a page whose title is checked. */
export interface TitleFacts {
  title: string;
  /** Its headings, one a line. */
  headings: string | null;
  url: string;
  /** Whether the page's text defines the query, one identifier (terms.ts definitionPattern): asked only when needed. */
  defines: (() => boolean) | null;
  /** The length of the page's text, in bytes of UTF-8 (0: none stored). */
  length: number;
}

/**
 * Length normalisation. Both text scores normalise by the page's length (bm25 with b = 0.75; ts_rank_cd divided by
 * 1 + log of the length), so a short page that mentions the words once scores about as a long page about them
 * that holds them tens of times. Among the pages whose titles are read, a page longer than the median of them has
 * its text score multiplied by (its length / that median) ^ LENGTH_EXPONENT: the subject page, which says more about
 * the words, moves ahead of the passing mention. Only lifts: a read page never falls below one left unread. (The
 * exponent is the tuning corpus's best of 0, 0.15, 0.25 and 0.5; none of the measured corpora fell with it.)
 */
export const LENGTH_EXPONENT = 0.15;

/** The text score's factor for a page of `length` bytes, among read pages of median length `median`. */
export function lengthFactor(length: number, median: number): number {
  if (!(median > 0) || length <= median) return 1;
  return (length / median) ** LENGTH_EXPONENT;
}

/** The median of the lengths given (0 for none). */
export function medianLength(lengths: readonly number[]): number {
  const sorted = lengths.filter((n) => n > 0).sort((a, b) => a - b);
  if (!sorted.length) return 0;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Which of the ranked rows (best first) have their title read: the first TITLE_CHECKS, and up to `setChecks` of
 * those whose title or superwords hold every word (`inTitle`).
 */
export function titleChecked<R extends Ranked>(
  ranked: readonly R[],
  inTitle: (r: R) => boolean,
  setChecks = TITLE_SET_CHECKS,
): boolean[] {
  return ranked.map((r, i) => {
    const all = inTitle(r);
    if (i >= TITLE_CHECKS && !(all && setChecks > 0)) return false;
    if (all) setChecks--;
    return true;
  });
}

/**
 * The ranked rows re-ranked with their titles: tiers first, then the text score plus TITLE_BOOST times the title's
 * own score. Only the rows titleChecked picks are read (`facts`); the others in `inTitle` get the title tier alone.
 */
export function withTitles<R extends Ranked>(
  ranked: readonly R[],
  inTitle: (r: R) => boolean,
  facts: (r: R) => TitleFacts,
  q: TitleQuery,
  setChecks = TITLE_SET_CHECKS,
): R[] {
  const checked = titleChecked(ranked, inTitle, setChecks);
  const read = ranked.map((r, i) => {
    if (!checked[i]) return null;
    const f = facts(r);
    return { f, heading: headingLevel(f.headings ?? '', q.units, f.title) };
  });
  const sharedHeading = read.filter((x) => x?.heading === 2).length > SHARED_HEADING_PAGES;
  const median = medianLength(read.map((x) => x?.f.length ?? 0));
  const out = ranked.map((r, i) => {
    const all = inTitle(r);
    const x = read[i];
    if (!x) return all ? { ...r, score: r.score + TITLE_TIER_SCORE } : r;
    const f = x.f;
    const title = titleNames(f.title);
    const level = exactTitleLevel([...title, ...titleSegments(f.title)], q.words);
    const heading = x.heading === 2 && sharedHeading ? 1 : x.heading;
    const titleTier = level === 2 ? TIER_EXACT_TITLE : level === 1 ? TIER_LOOSE_TITLE : all ? TIER_TITLE : 0;
    let tier = Math.max(titleTier, heading === 2 ? TIER_EXACT_HEADING : 0) + (heading ? TIER_HEADING_BONUS : 0);
    if (level === 2 && pathHolds(f.url, q.words, q.algorithms)) tier += TIER_PATH_BONUS;
    if (!level && f.defines?.()) tier += TIER_DEFINITION_BONUS;
    if (level !== 2) tier += TIER_ADDRESS_NAME[addressNameLevel(f.url, q.words)];
    const text = r.score * lengthFactor(f.length, median);
    return { ...r, score: text + TITLE_BOOST * titleScore(title, q.words, q.algorithms) + tier * TIER_SCORE };
  });
  return out.sort((a, b) => b.score - a.score);
}
