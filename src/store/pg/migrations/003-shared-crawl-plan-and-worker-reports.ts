// Several workers crawling one site: the lead's plan and each worker's report, as SQLite migration 15.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 3,
  name: "shared crawls: the plan and the workers' reports (SQLite migration 15)",
  sql: `
ALTER TABLE frontier_crawls ADD COLUMN plan text COLLATE "C";
CREATE TABLE frontier_workers (
  crawl_id bigint NOT NULL,
  worker   text COLLATE "C" NOT NULL,
  report   text COLLATE "C" NOT NULL,
  seen_at  bigint NOT NULL,
  PRIMARY KEY (crawl_id, worker)
);
`,
};
