// Rows of the OAuth sign-in: users' password hashes, registered clients, authorization codes and tokens.
// Codes and tokens are stored only as sha256 hashes; times are Unix seconds.
import type { User } from '../model/users.js';
import type { Store } from './store.js';

/** Sets a user's password hash; false when there is no such user. */
export function setPasswordHash(store: Store, login: string, passwordHash: string | null): boolean {
  return store.prepare('UPDATE users SET password_hash = ? WHERE login = ?').run(passwordHash, login).changes > 0;
}

/** The user and the stored password hash (null when the user has none), or null for an unknown login. */
export function userWithPasswordHash(store: Store, login: string): (User & { passwordHash: string | null }) | null {
  const row = store.prepare('SELECT login, role, password_hash FROM users WHERE login = ?').get(login) as
    | (User & { password_hash: string | null })
    | undefined;
  return row ? { login: row.login, role: row.role, passwordHash: row.password_hash } : null;
}

export function insertClient(store: Store, clientId: string, infoJson: string): void {
  store.prepare('INSERT INTO oauth_clients (client_id, info, created_at) VALUES (?, ?, ?)').run(clientId, infoJson, new Date().toISOString());
}

/** The client's stored metadata (JSON text), or null. */
export function clientInfoJson(store: Store, clientId: string): string | null {
  const row = store.prepare('SELECT info FROM oauth_clients WHERE client_id = ?').get(clientId) as { info: string } | undefined;
  return row?.info ?? null;
}

export interface CodeRow {
  codeHash: string;
  grantId: string;
  clientId: string;
  login: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string;
  resource: string;
  expiresAt: number;
  usedAt: number | null;
}

export function insertCode(store: Store, c: Omit<CodeRow, 'usedAt'>): void {
  store
    .prepare(
      'INSERT INTO oauth_codes (code_hash, grant_id, client_id, login, redirect_uri, code_challenge, scopes, resource, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    )
    .run(c.codeHash, c.grantId, c.clientId, c.login, c.redirectUri, c.codeChallenge, c.scopes, c.resource, c.expiresAt);
}

export function codeByHash(store: Store, codeHash: string): CodeRow | null {
  const row = store
    .prepare(
      `SELECT code_hash AS codeHash, grant_id AS grantId, client_id AS clientId, login, redirect_uri AS redirectUri,
              code_challenge AS codeChallenge, scopes, resource, expires_at AS expiresAt, used_at AS usedAt
       FROM oauth_codes WHERE code_hash = ?`,
    )
    .get(codeHash) as CodeRow | undefined;
  return row ?? null;
}

/** Marks a code used; false when it already was (two exchanges racing: only one wins). */
export function markCodeUsed(store: Store, codeHash: string, now: number): boolean {
  return store.prepare('UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL').run(now, codeHash).changes > 0;
}

export interface TokenRow {
  tokenHash: string;
  kind: 'access' | 'refresh';
  grantId: string;
  clientId: string;
  login: string;
  scopes: string;
  resource: string;
  expiresAt: number;
}

export function insertTokens(store: Store, rows: TokenRow[]): void {
  const st = store.prepare('INSERT INTO oauth_tokens (token_hash, kind, grant_id, client_id, login, scopes, resource, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  store.tx(() => {
    for (const t of rows) st.run(t.tokenHash, t.kind, t.grantId, t.clientId, t.login, t.scopes, t.resource, t.expiresAt);
  });
}

export function tokenByHash(store: Store, tokenHash: string): TokenRow | null {
  const row = store
    .prepare(
      `SELECT token_hash AS tokenHash, kind, grant_id AS grantId, client_id AS clientId, login, scopes, resource,
              expires_at AS expiresAt
       FROM oauth_tokens WHERE token_hash = ?`,
    )
    .get(tokenHash) as TokenRow | undefined;
  return row ?? null;
}

/** Deletes one token; false when it was already gone (a refresh token rotated by a concurrent request). */
export function deleteToken(store: Store, tokenHash: string): boolean {
  return store.prepare('DELETE FROM oauth_tokens WHERE token_hash = ?').run(tokenHash).changes > 0;
}

/** Deletes every token of one sign-in; returns how many. */
export function deleteGrantTokens(store: Store, grantId: string): number {
  return store.prepare('DELETE FROM oauth_tokens WHERE grant_id = ?').run(grantId).changes;
}

/** Deletes every token and unused code of a user; returns how many tokens. */
export function deleteUserTokens(store: Store, login: string): number {
  return store.tx(() => {
    store.prepare('DELETE FROM oauth_codes WHERE login = ?').run(login);
    return store.prepare('DELETE FROM oauth_tokens WHERE login = ?').run(login).changes;
  });
}

/** Drops codes and tokens that expired before `now`. */
export function deleteExpired(store: Store, now: number): void {
  store.tx(() => {
    store.prepare('DELETE FROM oauth_codes WHERE expires_at < ?').run(now);
    store.prepare('DELETE FROM oauth_tokens WHERE expires_at < ?').run(now);
  });
}
