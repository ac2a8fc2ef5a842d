// A crawl's retried requests: the column of SQLite migration 47.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 47,
  name: 'crawl retries',
  sql: `
ALTER TABLE crawls ADD COLUMN retries integer NOT NULL DEFAULT 0;
`,
};
