// A rotated refresh token is kept and marked, as SQLite migration 16.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 5,
  name: 'oauth: rotated refresh tokens are remembered (SQLite migration 16)',
  sql: `
ALTER TABLE oauth_tokens ADD COLUMN rotated_at bigint;
`,
};
