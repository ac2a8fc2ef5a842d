// Owned by the OAuth sign-in (src/auth/oauth). Passwords (scrypt, for the sign-in page), the clients that
// registered themselves, and the codes and tokens issued to them: codes and tokens only as sha256 hashes.
// A grant is one sign-in: its code and every token refreshed from it share grant_id, so a code used twice
// can revoke everything that came of it. Expiry times are Unix seconds.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 5,
  name: 'oauth sign-in: passwords, clients, codes, tokens',
  sql: `
ALTER TABLE users ADD COLUMN password_hash TEXT;

CREATE TABLE oauth_clients (
  client_id  TEXT PRIMARY KEY,
  info       TEXT NOT NULL,          -- JSON: the registered client metadata (RFC 7591), no secret
  created_at TEXT NOT NULL
);

CREATE TABLE oauth_codes (
  code_hash      TEXT PRIMARY KEY,
  grant_id       TEXT NOT NULL,
  client_id      TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  login          TEXT NOT NULL REFERENCES users(login) ON DELETE CASCADE,
  redirect_uri   TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  scopes         TEXT NOT NULL,      -- space separated
  resource       TEXT NOT NULL,
  expires_at     INTEGER NOT NULL,
  used_at        INTEGER             -- set on first exchange; a second one is refused and revokes the grant
);

CREATE TABLE oauth_tokens (
  token_hash TEXT PRIMARY KEY,
  kind       TEXT NOT NULL CHECK (kind IN ('access','refresh')),
  grant_id   TEXT NOT NULL,
  client_id  TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  login      TEXT NOT NULL REFERENCES users(login) ON DELETE CASCADE,
  scopes     TEXT NOT NULL,
  resource   TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX oauth_tokens_login ON oauth_tokens(login);
CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);
CREATE INDEX oauth_codes_grant ON oauth_codes(grant_id);
`,
};
