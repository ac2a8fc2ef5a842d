// A crawl's problem counts as its final link report held them: the column of SQLite migration 45.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 45,
  name: 'crawl problem counts',
  sql: `
ALTER TABLE crawls ADD COLUMN problems text COLLATE "C";
`,
};
