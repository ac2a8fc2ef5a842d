// A crawl counts the requests it sent again after a timeout, a reset or a 5xx (a target's `retries`), so the crawl
// record says how flaky the checks were.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 47,
  name: 'crawl retries',
  sql: `
ALTER TABLE crawls ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
`,
};
