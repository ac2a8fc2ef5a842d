// Several workers crawling one site: the lead's plan for the crawl (what a worker that joins needs to know, e.g.
// whether a target's links are walked), published once its seeds are in the frontier; and each worker's report
// (its share of the crawl's stats, renewed with its heartbeat), which the lead adds up at the end.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 15,
  name: "shared crawls: the plan and the workers' reports",
  sql: `
ALTER TABLE frontier_crawls ADD COLUMN plan TEXT;
CREATE TABLE frontier_workers (
  crawl_id INTEGER NOT NULL,
  worker   TEXT NOT NULL,
  report   TEXT NOT NULL,           -- JSON: the worker's stats and per-target seed results
  seen_at  INTEGER NOT NULL,
  PRIMARY KEY (crawl_id, worker)
);
`,
};
