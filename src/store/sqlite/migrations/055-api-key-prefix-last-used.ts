// API keys people can tell apart and judge: the first characters of each key (not secret: far too short to guess
// the rest), when it was last used, and when it was revoked (kept, so a second revoke can say it already was).
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 55,
  name: 'api key prefix, last used, revoked',
  sql: `
ALTER TABLE api_keys ADD COLUMN prefix TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
ALTER TABLE api_keys ADD COLUMN revoked_at TEXT;
`,
};
