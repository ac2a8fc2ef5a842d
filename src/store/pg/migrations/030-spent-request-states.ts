// Spent confirmations' requestStates: the table of SQLite migration 30, column for column.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 30,
  name: 'spent request states',
  sql: `
CREATE TABLE spent_request_states (
  state_hash text COLLATE "C" PRIMARY KEY,
  expires_at bigint NOT NULL
);
CREATE INDEX spent_request_states_expires_at ON spent_request_states(expires_at);
`,
};
