// A crawl's link report is final before its search index: the pages a crawl writes keep their searchable columns
// aside (page_index_pending) until the fetches are done, so search answers from the previous index meanwhile and
// the index is built in large batches afterwards (src/store/pending-index.ts). The crawl record says when each was.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 18,
  name: 'link report before search index',
  sql: `
ALTER TABLE crawls ADD COLUMN report_ready_at TEXT;
ALTER TABLE crawls ADD COLUMN indexed_at TEXT;
-- A page's searchable columns as its last crawl wrote them, not yet in pages (and so not in the index).
CREATE TABLE page_index_pending (
  page_id        INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
  indexed        INTEGER NOT NULL,
  show_in_search INTEGER NOT NULL,
  fresh          INTEGER NOT NULL,  -- 1: a page this crawl added: its other columns are in pages already
  title          TEXT,
  language       TEXT,
  tags           TEXT,
  superwords     TEXT,
  content        TEXT
);
`,
};
