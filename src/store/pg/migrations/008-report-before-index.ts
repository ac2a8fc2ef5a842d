// The link report before the search index: the columns and table of SQLite migration 18, column for column.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 8,
  name: 'link report before search index',
  sql: `
ALTER TABLE crawls ADD COLUMN report_ready_at text COLLATE "C";
ALTER TABLE crawls ADD COLUMN indexed_at text COLLATE "C";
CREATE TABLE page_index_pending (
  page_id        bigint PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
  indexed        integer NOT NULL,
  show_in_search integer NOT NULL,
  fresh          integer NOT NULL,  -- 1: a page this crawl added: its other columns are in pages already
  title          text COLLATE "C",
  language       text COLLATE "C",
  tags           text COLLATE "C",
  superwords     text COLLATE "C",
  content        text COLLATE "C"
);
`,
};
