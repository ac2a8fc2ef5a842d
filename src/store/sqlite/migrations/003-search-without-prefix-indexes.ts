// Owned by the search work (src/backend/search). The last word of a query is expanded into its most frequent
// completions through the index's vocabulary (search-index/completions.ts) from 3 characters on, so FTS5's own prefix
// indexes are never read; they cost about 40% of every page's indexing. Both indexes are rebuilt without them
// from the searchable pages (a 'rebuild' would read every row of pages, hidden ones included).
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 3,
  name: 'full-text indexes without prefix indexes',
  sql: `
DROP TABLE pages_fts;
DROP TABLE pages_title_fts;
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, superwords, tags, content,
  content='pages', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('automerge', 16);
INSERT INTO pages_fts(pages_fts, rank) VALUES ('crisismerge', 64);
CREATE VIRTUAL TABLE pages_title_fts USING fts5(
  title, superwords,
  content='pages', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO pages_fts(rowid, title, superwords, tags, content)
  SELECT id, title, superwords, tags, content FROM pages WHERE indexed = 1 AND show_in_search = 1;
INSERT INTO pages_title_fts(rowid, title, superwords)
  SELECT id, title, superwords FROM pages WHERE indexed = 1 AND show_in_search = 1;
`,
};
