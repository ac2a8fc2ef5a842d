// Schedules set through /v1, the CLI or the console, kept in the database: while a project has a row here it is the
// schedule in force (a kind with NULL has none), in place of the config's; deleting the row goes back to the config.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 60,
  name: 'stored schedules',
  sql: `
CREATE TABLE stored_schedules (
  project      TEXT PRIMARY KEY,
  full_cron    TEXT,
  partial_cron TEXT,
  set_at       TEXT NOT NULL
);
`,
};
