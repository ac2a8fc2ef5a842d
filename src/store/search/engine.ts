// What a store's full-text index does for the one search pipeline (pipeline.ts): find, count and score the matches
// of a parsed query, and read what the ranking and the hits need. Each store implements it over its own index
// (search-index/search.ts on SQLite FTS5, pg/search.ts on PostgreSQL tsvector); everything else is shared.
//
// What still differs between the two, by design (docs/postgresql.md):
// - the text score: FTS5's bm25 over the columns against ts_rank_cd over the vector's weights (both from
//   weights.ts), each on its own scale;
// - which forms of a word match: SQLite looks up the index's words of the query word's stem, its joined form
//   (`proxy pass` → proxypass) and a last word's completions in the index's vocabulary; PostgreSQL matches the
//   stems of each configuration in use, and a stop word of a page's language is not required there;
// - the words a typo is corrected to: SQLite's are its index's vocabulary (fts5vocab, with their pages), PostgreSQL's
//   a table of the words as written its page writes add to (their pages counted on the vector when needed).
import type { FacetCount, SearchHit } from '../../model/types.js';
import type { SearchFacetName } from '../../model/search-params.js';
import type { VocabularyWord } from './near-words.js';
import type { QueryPart } from './query.js';
import type { Ranked, TitleFacts } from './title-tiers.js';
import type { Definition } from './titles.js';

/** A value now (SQLite's synchronous driver) or later (PostgreSQL's). */
export type Awaitable<T> = T | Promise<T>;

export interface SearchFilters {
  /** Lower case; "en" also matches "en-us". */
  lang?: string;
  /** Every one of these tags (distinct). */
  tags: readonly string[];
  /** Only pages of these hosts (the configured targets). */
  hosts?: readonly string[];
  /** Only pages whose address path starts with this ("/docs/"). */
  pathPrefix?: string;
}

/** A match ranked by its text score, and whether its title or superwords hold every word of the query. */
export interface TextRanked extends Ranked {
  inTitle: boolean;
}

/** A hit as read from the store, before the pipeline gives it its place and score. */
export type StoredHit = Omit<SearchHit, 'score' | 'matched_terms' | 'section'>;

/**
 * What a highlight marks, folded: the query's words but those on most pages (a word like "the" marked everywhere
 * tells nothing), the last one maybe as a prefix; the window is centred on `rarest` (the query's rarest word)
 * where the page has it. Both stores mark them in JavaScript (highlight.ts), on the page's text.
 */
export interface HighlightWords {
  words: string[];
  prefix: string | null;
  rarest: string[];
}

/** One query opened on the index. Every call is answered from the same snapshot of it. */
export interface EngineQuery {
  /** The snowball algorithms the query's words were stemmed in (for the titles' stem matches). */
  readonly algorithms: readonly string[];
  /** Searchable pages, and on how many of them each word is (a prefix: its completions; a stop word: every page). */
  frequencies(words: readonly { word: string; prefix: boolean }[]): Awaitable<{ pages: number; df: number[] }>;
  /** The exact number of matches. */
  count(): Awaitable<number>;
  /** Every match (there are at most RANK_ALL), best text score first, ties in index order. */
  rankAll(): Awaitable<TextRanked[]>;
  /** The number of matches whose title or superwords hold every word (the title tier). */
  titleCount(): Awaitable<number>;
  /** Every match of the title tier (there are at most RANK_BLOCK), best title score first. */
  rankTitles(): Awaitable<Ranked[]>;
  /** Block k of the title tier's matches in index order (RANK_BLOCK of them), best first within it. */
  titleBlock(k: number): Awaitable<Ranked[]>;
  /** Block k of the other matches in index order (RANK_BLOCK of them), best first within it. */
  otherBlock(k: number): Awaitable<Ranked[]>;
  /**
   * The title, headings and address of these pages; `defines` as a check of the page's text when `definition` is
   * given (the query is one identifier), else null.
   */
  titleFacts(ids: readonly number[], definition: Definition | null): Awaitable<Map<number, TitleFacts>>;
  /** The hits of these pages, each with its highlight of about `highlightLength` characters (see HighlightWords). */
  hits(ids: readonly number[], highlightLength: number, marks: HighlightWords): Awaitable<Map<number, StoredHit>>;
  /** The matches counted by each facet asked: the FACET_VALUES most frequent values, most frequent first. */
  facets(names: readonly SearchFacetName[]): Awaitable<Partial<Record<SearchFacetName, FacetCount[]>>>;
}

/** A facet lists at most this many values. */
export const FACET_VALUES = 20;

export interface SearchEngine {
  /** Opens the parsed query; null when the index reads no word in it (every word a stop word): no match. */
  open(parts: QueryPart[], filters: SearchFilters): Awaitable<EngineQuery | null>;
  /**
   * Words of the index beginning with `prefix` (folded), at most MAX_CANDIDATES (the candidates of a typo's
   * correction, near-words.ts), with the pages each is on where the index knows it at no cost (SQLite's vocabulary).
   */
  vocabulary(prefix: string): Awaitable<readonly VocabularyWord[]>;
  /** The pages each of these words (folded) is on: the few nearest candidates whose count vocabulary() left out. */
  pages(words: readonly string[]): Awaitable<number[]>;
}
