// How much a word counts by where on the page it is: the one table both stores' text scores are derived from
// (SQLite's bm25 column weights, PostgreSQL's ts_rank_cd weights of the vector's classes A–D).
//
// A word in the title or superwords counts most; the address's words (path-words.ts) and the headings name the
// page less surely than its title and more than its text; tags a little more than the text. (On the tuning corpus
// any address weight from 0 to 40 ranks the same: its answers are decided by the title tiers.)
export const FIELD_WEIGHTS = {
  title: 10,
  superwords: 20,
  headings: 4,
  address: 4,
  tags: 2,
  content: 1,
} as const;

/** bm25 column weights of SQLite's pages_fts, in its column order (title, superwords, tags, content, path_words). */
export const BM25_WEIGHTS = [
  FIELD_WEIGHTS.title,
  FIELD_WEIGHTS.superwords,
  FIELD_WEIGHTS.tags,
  FIELD_WEIGHTS.content,
  FIELD_WEIGHTS.address,
] as const;

/** bm25 column weights of SQLite's pages_title_fts (title, superwords). */
export const TITLE_BM25_WEIGHTS = [FIELD_WEIGHTS.title, FIELD_WEIGHTS.superwords] as const;

/**
 * ts_rank_cd's weights of the classes D, C, B, A (content; tags; headings and address; title and superwords),
 * relative to the title's: a class holds several fields, and ts_rank_cd takes weights from 0 to 1.
 */
export const TS_RANK_WEIGHTS = [
  FIELD_WEIGHTS.content / FIELD_WEIGHTS.title,
  FIELD_WEIGHTS.tags / FIELD_WEIGHTS.title,
  FIELD_WEIGHTS.address / FIELD_WEIGHTS.title,
  1,
] as const;
