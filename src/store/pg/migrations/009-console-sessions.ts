// Sessions of the console's signed-in people: the table of SQLite migration 19, column for column.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 9,
  name: 'console sessions',
  sql: `
CREATE TABLE console_sessions (
  id_hash    text COLLATE "C" PRIMARY KEY,
  login      text COLLATE "C" NOT NULL REFERENCES users(login) ON DELETE CASCADE,
  created_at text COLLATE "C" NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX console_sessions_expires_at ON console_sessions(expires_at);
`,
};
