// Sessions of the console's signed-in people, kept in the database (not in a process) so any `svc serve` on the
// same store answers for a session another one made, and a restart signs nobody out. Only a hash of the cookie's
// secret is stored; a session ends with its user (ON DELETE CASCADE), at sign-out, or when it expires.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 19,
  name: 'console sessions',
  sql: `
CREATE TABLE console_sessions (
  id_hash    TEXT PRIMARY KEY,   -- sha256 of the cookie's secret
  login      TEXT NOT NULL REFERENCES users(login) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at INTEGER NOT NULL    -- ms since the epoch
);
CREATE INDEX console_sessions_expires_at ON console_sessions(expires_at);
`,
};
