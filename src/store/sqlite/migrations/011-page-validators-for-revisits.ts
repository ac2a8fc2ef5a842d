// Conditional re-crawls: what the next crawl asks a page's server with
// (If-None-Match / If-Modified-Since), a hash of the body it was made from (a 200 with the same one is not
// parsed or indexed again), the settings it was extracted under, and its links as found, replayed when the
// page is kept. All NULL for pages stored before: they are fetched and parsed once more as before. Crawl
// records count the pages kept so.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 11,
  name: 'page validators, body hash and found links for conditional re-crawls',
  sql: `
ALTER TABLE pages ADD COLUMN etag TEXT;
ALTER TABLE pages ADD COLUMN last_modified TEXT;
ALTER TABLE pages ADD COLUMN body_hash TEXT;
ALTER TABLE pages ADD COLUMN revisit_key TEXT;
ALTER TABLE pages ADD COLUMN found_links TEXT;
-- Of a crawl's pages: how many were kept because the site answered 304, or sent the same body again.
ALTER TABLE crawls ADD COLUMN not_modified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN unchanged INTEGER NOT NULL DEFAULT 0;
`,
};
