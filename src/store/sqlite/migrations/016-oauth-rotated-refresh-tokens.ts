// A rotated refresh token is kept and marked, so a replay of it can be told from an unknown token and end the
// whole sign-in (every token of its family).
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 16,
  name: 'oauth: rotated refresh tokens are remembered',
  sql: `
ALTER TABLE oauth_tokens ADD COLUMN rotated_at INTEGER;
`,
};
