// Crawls handed to a client as tasks it polls and cancels: the task maps a random id to the crawl and its owner, so
// any process on the database answers for it, after a restart too. The crawl record stays the truth for progress
// and end state; the task keeps only what the crawl does not know (see src/store/tasks.ts).
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 17,
  name: 'crawl tasks',
  sql: `
CREATE TABLE crawl_tasks (
  id               TEXT PRIMARY KEY,   -- random, URL-safe; what the client polls with
  owner            TEXT NOT NULL,      -- the login of the user who started it: nobody else sees it
  ability          TEXT NOT NULL,      -- svc/full-crawl, svc/partial-crawl or svc/manual-crawl
  capability       TEXT NOT NULL,      -- what it took to start it, and what it takes to cancel it
  crawl_id         INTEGER NOT NULL,
  created_at       TEXT NOT NULL,
  ttl_ms           INTEGER NOT NULL,   -- kept this long after the crawl ends
  poll_interval_ms INTEGER NOT NULL,
  cancelled_at     TEXT,               -- set by a cancel: the crawl alone cannot tell a cancel from another stop
  expires_at       TEXT                -- the crawl's end + ttl_ms, set once the end is seen; null while it runs
);
CREATE INDEX crawl_tasks_expires_at ON crawl_tasks(expires_at);
`,
};
