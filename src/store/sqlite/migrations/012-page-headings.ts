// Owned by the search work (src/store/search-index). The text of a page's headings (h1–h6), one a line: the
// ranking reads it for its best matches, as it reads their titles (a page with a heading that is the query
// ranks high). A table of its own, not a column of pages: a column added to pages sits after the page's text,
// and reading it for 30 pages a query cost as much as the rest of the title ranking. Not in the full-text
// index, so nothing is re-indexed; pages stored before get theirs when next crawled.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 12,
  name: 'page headings for ranking',
  sql: `
CREATE TABLE page_headings (
  page_id  INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
  headings TEXT NOT NULL
);
`,
};
