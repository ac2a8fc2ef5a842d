// A sign-in form (the console's, the OAuth page's) is taken once: its id is kept here until the form would have
// expired anyway, and a second post of it is refused. In the database, so every process serving the console or the
// OAuth page refuses it alike, whichever one issued the form.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 85,
  name: 'spent sign-in forms',
  sql: `
CREATE TABLE spent_sign_in_forms (
  form_id TEXT PRIMARY KEY,      -- the form token's random id (nothing without the server's signature)
  expires_at INTEGER NOT NULL    -- ms since the epoch; forgotten after
);
CREATE INDEX spent_sign_in_forms_expires_at ON spent_sign_in_forms(expires_at);
`,
};
