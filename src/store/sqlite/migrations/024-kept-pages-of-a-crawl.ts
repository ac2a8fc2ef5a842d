// A crawl's not-modified and unchanged pages are counted in the store, like its stored pages: a shared crawl's
// worker that dies after reporting them, and another that fetches them again, must not count them twice. A kept
// page says which crawl kept it and how (304, or the same body).
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 24,
  name: 'kept pages of a crawl',
  sql: `
ALTER TABLE pages ADD COLUMN kept_crawl_id INTEGER;
ALTER TABLE pages ADD COLUMN kept_as TEXT;  -- 'notModified' | 'unchanged'
`,
};
