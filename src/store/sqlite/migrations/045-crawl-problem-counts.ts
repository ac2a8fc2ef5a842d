// A crawl's problem counts (problem links and occurrences, per reason and in total) as its link report held them
// when it was final: written once with report_ready_at, so the record, the webhook and every surface read the same
// numbers the report gave at that moment (JSON; null for older crawls and crawls that failed before it).
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 45,
  name: 'crawl problem counts',
  sql: `
ALTER TABLE crawls ADD COLUMN problems TEXT;
`,
};
