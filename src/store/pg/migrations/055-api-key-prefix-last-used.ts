// API keys people can tell apart: the columns of SQLite migration 55, column for column.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 55,
  name: 'api key prefix, last used, revoked',
  sql: `
ALTER TABLE api_keys ADD COLUMN prefix text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at text COLLATE "C";
ALTER TABLE api_keys ADD COLUMN revoked_at text COLLATE "C";
`,
};
