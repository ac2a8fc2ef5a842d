// Owned by the search work (src/store/search-index). Stems at query time: the indexes hold a page's words as
// written and nothing else (no stem or identifier-part columns, no JS in the triggers' indexing), and a query
// word is searched as the indexed words that share its stem (search-index/stems.ts, from the index's vocabulary). Computing
// and indexing every page's stems cost as much as the rest of indexing it. search_stemmers stays: it tells
// which stemmers a query's words are stemmed in. Both indexes are rebuilt from the searchable pages.
import type { Migration } from './index.js';

/**
 * Fills the (empty) full-text indexes from the searchable pages, as the triggers of migration 13 index a page (`svc
 * repair` used it until migration 23 added the address column: it uses that migration's now).
 */
const FILL_SEARCH_INDEXES = `INSERT INTO pages_fts(rowid, title, superwords, tags, content)
  SELECT id, title, superwords, tags, content FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT INTO pages_title_fts(rowid, title, superwords)
  SELECT id, title, superwords FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT OR IGNORE INTO search_stemmers(stemmer)
  SELECT DISTINCT svc_stemmer(language) FROM pages WHERE indexed = 1 AND show_in_search = 1 AND svc_stemmer(language) IS NOT NULL;
`;

export const migration: Migration = {
  version: 13,
  name: 'full-text indexes of words as written (stems at query time)',
  sql: `
DROP TRIGGER pages_ai;
DROP TRIGGER pages_ad;
DROP TRIGGER pages_au;
DROP TABLE pages_fts;
DROP TABLE pages_title_fts;
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, superwords, tags, content,
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
  INSERT INTO pages_fts(rowid, title, superwords, tags, content) VALUES (new.id, new.title, new.superwords, new.tags, new.content);
  INSERT INTO pages_title_fts(rowid, title, superwords) VALUES (new.id, new.title, new.superwords);
  INSERT INTO search_stemmers(stemmer) SELECT svc_stemmer(new.language)
    WHERE svc_stemmer(new.language) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_stemmers WHERE stemmer = svc_stemmer(new.language));
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages WHEN old.indexed = 1 AND old.show_in_search = 1 BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id;
  DELETE FROM pages_title_fts WHERE rowid = old.id;
END;
CREATE TRIGGER pages_au AFTER UPDATE OF indexed, show_in_search, title, language, superwords, tags, content ON pages
WHEN old.indexed IS NOT new.indexed OR old.show_in_search IS NOT new.show_in_search OR old.title IS NOT new.title
  OR old.language IS NOT new.language OR old.superwords IS NOT new.superwords OR old.tags IS NOT new.tags OR old.content IS NOT new.content BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  DELETE FROM pages_title_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  INSERT INTO pages_fts(rowid, title, superwords, tags, content)
    SELECT new.id, new.title, new.superwords, new.tags, new.content WHERE new.indexed = 1 AND new.show_in_search = 1;
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
