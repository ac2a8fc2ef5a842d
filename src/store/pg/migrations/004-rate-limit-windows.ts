// Request rate limit counters, shared by every svc serve on the database. PostgreSQL only: SQLite counts in the
// serving process's memory (src/store/rate-limits.ts says why).
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 4,
  name: 'request rate limit counters, shared by every svc serve on the database',
  sql: `
CREATE TABLE rate_limit_windows (
  key          text COLLATE "C" PRIMARY KEY,
  window_start bigint NOT NULL,
  hits         bigint NOT NULL
);
CREATE INDEX rate_limit_windows_start ON rate_limit_windows(window_start);
`,
};
