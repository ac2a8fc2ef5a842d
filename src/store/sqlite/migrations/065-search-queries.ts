// Search analytics: one row per search answered (its first page), so the site's owner sees what people look for and
// what they do not find. The terms as the search pipeline reads them (folded words), how many pages matched, and
// when; never the address, user, key or session of whoever searched. Rows older than search_stats.retention_days
// are deleted. Both indexes hold every column a read of the analytics needs, so the reads (per day: by time; per
// query: by terms) never visit the table.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 65,
  name: 'search queries',
  sql: `
CREATE TABLE search_queries (
  id INTEGER PRIMARY KEY,
  project TEXT NOT NULL,
  terms TEXT NOT NULL,          -- normalized: the folded words, "phrases" quoted, identifiers joined
  hits INTEGER NOT NULL,        -- the answer's total
  searched_at TEXT NOT NULL     -- ISO 8601, UTC
);
CREATE INDEX search_queries_time ON search_queries(project, searched_at, hits);
CREATE INDEX search_queries_terms ON search_queries(project, terms, searched_at, hits);
`,
};
