// A crawl's kept pages counted in the store: the columns of SQLite migration 24, column for column.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 14,
  name: 'kept pages of a crawl',
  sql: `
ALTER TABLE pages ADD COLUMN kept_crawl_id bigint;
ALTER TABLE pages ADD COLUMN kept_as text COLLATE "C";  -- 'notModified' | 'unchanged'
`,
};
