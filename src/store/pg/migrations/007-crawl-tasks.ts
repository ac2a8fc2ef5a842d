// Crawls handed to a client as tasks it polls and cancels: the table of SQLite migration 17, column for column.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 7,
  name: 'crawl tasks',
  sql: `
CREATE TABLE crawl_tasks (
  id               text COLLATE "C" PRIMARY KEY,
  owner            text COLLATE "C" NOT NULL,
  ability          text COLLATE "C" NOT NULL,
  capability       text COLLATE "C" NOT NULL,
  crawl_id         bigint NOT NULL,
  created_at       text COLLATE "C" NOT NULL,
  ttl_ms           bigint NOT NULL,
  poll_interval_ms bigint NOT NULL,
  cancelled_at     text COLLATE "C",
  expires_at       text COLLATE "C"
);
CREATE INDEX crawl_tasks_expires_at ON crawl_tasks(expires_at);
`,
};
