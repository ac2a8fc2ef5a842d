// Webhook receivers added from the console, beside the config's. The signing secret must be usable to sign, so it
// cannot be a hash: it is kept sealed (AES-256-GCM under the webhook secrets key, which is not in this database).
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 22,
  name: 'webhook receivers added in the console',
  sql: `
CREATE TABLE webhook_receivers (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  project       TEXT NOT NULL,
  url           TEXT NOT NULL,
  events        TEXT NOT NULL,   -- JSON array of event names
  allow_private INTEGER NOT NULL DEFAULT 0,
  secret_sealed TEXT NOT NULL,   -- v1.<iv>.<tag>.<ciphertext>, base64url
  created_at    TEXT NOT NULL,
  UNIQUE (project, url)
);
`,
};
