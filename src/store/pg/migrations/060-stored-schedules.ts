// Schedules set through /v1, the CLI or the console: the table of SQLite migration 60, column for column.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 60,
  name: 'stored schedules',
  sql: `
CREATE TABLE stored_schedules (
  project      text COLLATE "C" PRIMARY KEY,
  full_cron    text COLLATE "C",
  partial_cron text COLLATE "C",
  set_at       text COLLATE "C" NOT NULL
);
`,
};
