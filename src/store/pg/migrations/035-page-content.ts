// A stored page's Markdown and outline for reading it back: the table of SQLite migration 35, column for column.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 35,
  name: 'page content for reading',
  sql: `
CREATE TABLE page_content (
  page_id  bigint PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
  markdown text COLLATE "C" NOT NULL,
  outline  text COLLATE "C" NOT NULL
);
`,
};
