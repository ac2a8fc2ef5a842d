// A confirmation's requestState is good for one deletion: once a retry with it deletes, its hash is kept here until
// the state would have expired anyway, and a second retry with it is refused. In the database, so every process on
// the store refuses it alike.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 30,
  name: 'spent request states',
  sql: `
CREATE TABLE spent_request_states (
  state_hash TEXT PRIMARY KEY,   -- sha256 of the requestState
  expires_at INTEGER NOT NULL    -- ms since the epoch; forgotten after
);
CREATE INDEX spent_request_states_expires_at ON spent_request_states(expires_at);
`,
};
