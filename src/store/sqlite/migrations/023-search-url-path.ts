// Owned by the search work (src/store/search-index). A page's address is searchable as a field of its own: the words
// of its URL path (search-index/path-words.ts) in pages.path_words, written by the crawl writers (and waiting in
// page_index_pending with the other searchable columns while a crawl runs), indexed as pages_fts's fifth column and
// weighted there (search.ts BM25_WEIGHTS). The full-text index is rebuilt from the searchable pages (an FTS5 table
// takes no new column), the stored pages' words computed from their URLs by svc_path_words (the function the writers
// use) as they are indexed; their column stays NULL until a crawl writes them again.
import type { Migration } from './index.js';

/**
 * A page's address words as indexed: its column as the writers wrote it, or, for a page stored before this migration
 * (NULL: the migration does not write every page row again, which cost more than the index itself), computed from
 * its URL by the same function. `row`: the triggers' `new.`, or nothing.
 */
const PATH_WORDS = (row: string) => `COALESCE(${row}path_words, svc_path_words(${row}url))`;

/**
 * Fills the (empty) full-text indexes from the searchable pages, as the triggers below index a page: the migration
 * uses it, and so does `svc repair` (the one definition of what the indexes hold).
 */
export const FILL_SEARCH_INDEXES = `INSERT INTO pages_fts(rowid, title, superwords, tags, content, path_words)
  SELECT id, title, superwords, tags, content, ${PATH_WORDS('')} FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT INTO pages_title_fts(rowid, title, superwords)
  SELECT id, title, superwords FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT OR IGNORE INTO search_stemmers(stemmer)
  SELECT DISTINCT svc_stemmer(language) FROM pages WHERE indexed = 1 AND show_in_search = 1 AND svc_stemmer(language) IS NOT NULL;
`;

export const migration: Migration = {
  version: 23,
  name: 'the URL path as a search field',
  sql: `
ALTER TABLE pages ADD COLUMN path_words TEXT;
ALTER TABLE page_index_pending ADD COLUMN path_words TEXT;
DROP TRIGGER pages_ai;
DROP TRIGGER pages_ad;
DROP TRIGGER pages_au;
DROP TABLE pages_fts;
DROP TABLE pages_title_fts;
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, superwords, tags, content, path_words,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('automerge', 16);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('crisismerge', 64);
CREATE VIRTUAL TABLE pages_title_fts USING fts5(
  title, superwords,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER pages_ai AFTER INSERT ON pages WHEN new.indexed = 1 AND new.show_in_search = 1 BEGIN
  INSERT INTO pages_fts(rowid, title, superwords, tags, content, path_words) VALUES (new.id, new.title, new.superwords, new.tags, new.content, ${PATH_WORDS('new.')});
  INSERT INTO pages_title_fts(rowid, title, superwords) VALUES (new.id, new.title, new.superwords);
  INSERT INTO search_stemmers(stemmer) SELECT svc_stemmer(new.language)
    WHERE svc_stemmer(new.language) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_stemmers WHERE stemmer = svc_stemmer(new.language));
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages WHEN old.indexed = 1 AND old.show_in_search = 1 BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id;
  DELETE FROM pages_title_fts WHERE rowid = old.id;
END;
CREATE TRIGGER pages_au AFTER UPDATE OF indexed, show_in_search, title, language, superwords, tags, content, path_words ON pages
WHEN old.indexed IS NOT new.indexed OR old.show_in_search IS NOT new.show_in_search OR old.title IS NOT new.title
  OR old.language IS NOT new.language OR old.superwords IS NOT new.superwords OR old.tags IS NOT new.tags OR old.content IS NOT new.content
  OR old.path_words IS NOT new.path_words BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  DELETE FROM pages_title_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  INSERT INTO pages_fts(rowid, title, superwords, tags, content, path_words)
    SELECT new.id, new.title, new.superwords, new.tags, new.content, ${PATH_WORDS('new.')} WHERE new.indexed = 1 AND new.show_in_search = 1;
  INSERT INTO pages_title_fts(rowid, title, superwords)
    SELECT new.id, new.title, new.superwords WHERE new.indexed = 1 AND new.show_in_search = 1;
  INSERT INTO search_stemmers(stemmer) SELECT svc_stemmer(new.language) WHERE new.indexed = 1 AND new.show_in_search = 1
    AND svc_stemmer(new.language) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_stemmers WHERE stemmer = svc_stemmer(new.language));
END;
${FILL_SEARCH_INDEXES}
INSERT INTO pages_fts(pages_fts) VALUES ('optimize');
INSERT INTO pages_title_fts(pages_title_fts) VALUES ('optimize');
`,
};
