// The words as written of the searchable pages, for typo correction (store/search/near-words.ts): SQLite reads them
// from its FTS5 index's vocabulary, PostgreSQL's vector holds stems only. search_words lists each word once (folded
// as the SQLite index folds), without counts: a count per word would be a row every page write updates, so
// concurrent crawl writers would queue on the common words; the few candidates a correction weighs are counted on
// the vectors instead. A word stays listed after its last page goes (its count is then 0: it is never chosen). The
// page writes add their words (pg/search-words.ts); the pages stored before are read here once.
import type { PgMigration } from './index.js';
import { VECTOR_CONTENT_CHARS } from './001-schema-with-tsvector-search.js';

export const migration: PgMigration = {
  version: 75,
  name: 'search words as written',
  sql: `
CREATE TABLE search_words (word text COLLATE "C" PRIMARY KEY);

INSERT INTO search_words (word)
  SELECT DISTINCT x.w FROM pages p
  CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector((SELECT config FROM search_ts_configs WHERE lang = ''),
    p.title || ' ' || p.superwords || ' ' || COALESCE(p.path_words, '') || ' ' || left(p.content, ${VECTOR_CONTENT_CHARS})))) AS x(w)
  WHERE p.search_vector IS NOT NULL AND length(x.w) <= 64 AND x.w ~ '^[[:alpha:]][[:alnum:]]*$'
  ON CONFLICT DO NOTHING;
`,
};
