// Spent sign-in forms: the table of SQLite migration 85, column for column.
import type { PgMigration } from './index.js';

export const migration: PgMigration = {
  version: 85,
  name: 'spent sign-in forms',
  sql: `
CREATE TABLE spent_sign_in_forms (
  form_id text COLLATE "C" PRIMARY KEY,
  expires_at bigint NOT NULL
);
CREATE INDEX spent_sign_in_forms_expires_at ON spent_sign_in_forms(expires_at);
`,
};
