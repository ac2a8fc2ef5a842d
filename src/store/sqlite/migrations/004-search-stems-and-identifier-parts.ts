// Owned by the search work (src/store/search-index). Search by stems and identifier parts: each index gets
// columns of extra terms (search-index/terms.ts: the Snowball stems of the page's words in its language, and the parts of
// camelCase words), computed in JS by the function svc_terms, which every connection registers before it
// migrates or writes. The indexes become contentless (with deletes by rowid), so a page leaves the index
// without its old terms being computed again. search_stemmers lists the stemmers of the indexed pages, so a
// query's words are stemmed in each of them. The indexes are rebuilt from the searchable pages.
import type { Migration } from './index.js';

/** How migration 4 filled its indexes (with stems and identifier parts, computed by svc_terms); as it shipped. */
const FILL_SEARCH_INDEXES_4 = `INSERT INTO pages_fts(rowid, title, superwords, tags, content, title_terms, terms)
  SELECT id, title, superwords, tags, content, svc_terms(language, title), svc_terms(language, content) FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT INTO pages_title_fts(rowid, title, superwords, title_terms)
  SELECT id, title, superwords, svc_terms(language, title) FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT OR IGNORE INTO search_stemmers(stemmer)
  SELECT DISTINCT svc_stemmer(language) FROM pages WHERE indexed = 1 AND show_in_search = 1 AND svc_stemmer(language) IS NOT NULL;
`;

export const migration: Migration = {
  version: 4,
  name: 'full-text indexes with stems and identifier parts',
  sql: `
DROP TRIGGER pages_ai;
DROP TRIGGER pages_ad;
DROP TRIGGER pages_au;
DROP TABLE pages_fts;
DROP TABLE pages_title_fts;
CREATE TABLE search_stemmers (stemmer TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, superwords, tags, content, title_terms, terms,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('automerge', 16);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('crisismerge', 64);
CREATE VIRTUAL TABLE pages_title_fts USING fts5(
  title, superwords, title_terms,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER pages_ai AFTER INSERT ON pages WHEN new.indexed = 1 AND new.show_in_search = 1 BEGIN
  INSERT INTO pages_fts(rowid, title, superwords, tags, content, title_terms, terms)
    VALUES (new.id, new.title, new.superwords, new.tags, new.content, svc_terms(new.language, new.title), svc_terms(new.language, new.content));
  INSERT INTO pages_title_fts(rowid, title, superwords, title_terms) VALUES (new.id, new.title, new.superwords, svc_terms(new.language, new.title));
  INSERT INTO search_stemmers(stemmer) SELECT svc_stemmer(new.language)
    WHERE svc_stemmer(new.language) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_stemmers WHERE stemmer = svc_stemmer(new.language));
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages WHEN old.indexed = 1 AND old.show_in_search = 1 BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id;
  DELETE FROM pages_title_fts WHERE rowid = old.id;
END;
-- (A trigger's INSERT OR IGNORE would take the outer upsert's conflict policy: hence NOT EXISTS.)
-- As before: one update trigger, the old entry out before the new one in, and only when something indexed changed
-- (the language too now: it chooses the stemmer).
CREATE TRIGGER pages_au AFTER UPDATE OF indexed, show_in_search, title, language, superwords, tags, content ON pages
WHEN old.indexed IS NOT new.indexed OR old.show_in_search IS NOT new.show_in_search OR old.title IS NOT new.title
  OR old.language IS NOT new.language OR old.superwords IS NOT new.superwords OR old.tags IS NOT new.tags OR old.content IS NOT new.content BEGIN
  DELETE FROM pages_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  DELETE FROM pages_title_fts WHERE rowid = old.id AND old.indexed = 1 AND old.show_in_search = 1;
  INSERT INTO pages_fts(rowid, title, superwords, tags, content, title_terms, terms)
    SELECT new.id, new.title, new.superwords, new.tags, new.content, svc_terms(new.language, new.title), svc_terms(new.language, new.content)
    WHERE new.indexed = 1 AND new.show_in_search = 1;
  INSERT INTO pages_title_fts(rowid, title, superwords, title_terms)
    SELECT new.id, new.title, new.superwords, svc_terms(new.language, new.title) WHERE new.indexed = 1 AND new.show_in_search = 1;
  INSERT INTO search_stemmers(stemmer) SELECT svc_stemmer(new.language) WHERE new.indexed = 1 AND new.show_in_search = 1
    AND svc_stemmer(new.language) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_stemmers WHERE stemmer = svc_stemmer(new.language));
END;
${FILL_SEARCH_INDEXES_4}
INSERT INTO pages_fts(pages_fts) VALUES ('optimize');
INSERT INTO pages_title_fts(pages_title_fts) VALUES ('optimize');
`,
};
