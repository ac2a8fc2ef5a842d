// Keys the server makes for itself and every svc serve on the database must share (the requestState signing key):
// instances on PostgreSQL may run on different machines with no data directory in common, and a confirmed delete's
// retry may reach any of them. SQLite keeps such a key in its data directory instead, beside the database file.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 6,
  name: 'server keys shared by every svc serve on the database',
  sql: `
CREATE TABLE server_keys (
  name       text COLLATE "C" PRIMARY KEY,
  secret     text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL
);
`,
};
