// Rows of the OAuth sign-in: users' password hashes, registered clients, authorization codes and tokens.
// Codes and tokens are stored only as sha256 hashes; times are Unix seconds.
import { deleteUserConsoleSessions } from './console-sessions.js';
import type { User } from '../model/users.js';
import type { Sql } from './sql.js';

/** Sets a user's password hash; false when there is no such user. */
export async function setPasswordHash(sql: Sql, login: string, passwordHash: string | null): Promise<boolean> {
  // A new password ends the user's console sessions: whoever signed in with the old one is out.
  return sql.tx(async (t) => {
    const set = (await t.run('UPDATE users SET password_hash = ? WHERE login = ?', [passwordHash, login])).changes > 0;
    if (set) await deleteUserConsoleSessions(t, login);
    return set;
  });
}

/** Replaces a user's password hash only while it is still `was`; false when it is not (or there is no such user). */
export async function replacePasswordHash(
  sql: Sql,
  login: string,
  was: string,
  passwordHash: string,
): Promise<boolean> {
  return (
    (
      await sql.run('UPDATE users SET password_hash = ? WHERE login = ? AND password_hash = ?', [
        passwordHash,
        login,
        was,
      ])
    ).changes > 0
  );
}

/** The user and the stored password hash (null when the user has none), or null for an unknown login. */
export async function userWithPasswordHash(
  sql: Sql,
  login: string,
): Promise<(User & { passwordHash: string | null }) | null> {
  const row = await sql.get<User & { password_hash: string | null }>(
    'SELECT login, role, password_hash FROM users WHERE login = ?',
    [login],
  );
  return row ? { login: row.login, role: row.role, passwordHash: row.password_hash } : null;
}

export async function insertClient(sql: Sql, clientId: string, infoJson: string): Promise<void> {
  await sql.run('INSERT INTO oauth_clients (client_id, info, created_at) VALUES (?, ?, ?)', [
    clientId,
    infoJson,
    new Date().toISOString(),
  ]);
}

/** Inserts or refreshes a client row (a metadata document's client, kept for the codes and tokens issued to it). */
export async function upsertClient(sql: Sql, clientId: string, infoJson: string): Promise<void> {
  await sql.run(
    'INSERT INTO oauth_clients (client_id, info, created_at) VALUES (?, ?, ?) ON CONFLICT (client_id) DO UPDATE SET info = excluded.info',
    [clientId, infoJson, new Date().toISOString()],
  );
}

/** The client's stored metadata (JSON text), or null. */
export async function clientInfoJson(sql: Sql, clientId: string): Promise<string | null> {
  const row = await sql.get<{ info: string }>('SELECT info FROM oauth_clients WHERE client_id = ?', [clientId]);
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

export async function insertCode(sql: Sql, c: Omit<CodeRow, 'usedAt'>): Promise<void> {
  await sql.run(
    'INSERT INTO oauth_codes (code_hash, grant_id, client_id, login, redirect_uri, code_challenge, scopes, resource, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [c.codeHash, c.grantId, c.clientId, c.login, c.redirectUri, c.codeChallenge, c.scopes, c.resource, c.expiresAt],
  );
}

export async function codeByHash(sql: Sql, codeHash: string): Promise<CodeRow | null> {
  const row = await sql.get<CodeRow>(
    `SELECT code_hash AS "codeHash", grant_id AS "grantId", client_id AS "clientId", login, redirect_uri AS "redirectUri",
            code_challenge AS "codeChallenge", scopes, resource, expires_at AS "expiresAt", used_at AS "usedAt"
     FROM oauth_codes WHERE code_hash = ?`,
    [codeHash],
  );
  return row ?? null;
}

/** Marks a code used; false when it already was (two exchanges racing: only one wins). */
export async function markCodeUsed(sql: Sql, codeHash: string, now: number): Promise<boolean> {
  return (
    (await sql.run('UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL', [now, codeHash]))
      .changes > 0
  );
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
  /** When a refresh token was traded for new ones (it is kept, so a second use can be recognised); else null. */
  rotatedAt: number | null;
}

export async function insertTokens(sql: Sql, rows: Omit<TokenRow, 'rotatedAt'>[]): Promise<void> {
  await sql.tx(async (t) => {
    for (const r of rows) {
      await t.run(
        'INSERT INTO oauth_tokens (token_hash, kind, grant_id, client_id, login, scopes, resource, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [r.tokenHash, r.kind, r.grantId, r.clientId, r.login, r.scopes, r.resource, r.expiresAt],
      );
    }
  });
}

export async function tokenByHash(sql: Sql, tokenHash: string): Promise<TokenRow | null> {
  const row = await sql.get<TokenRow>(
    `SELECT token_hash AS "tokenHash", kind, grant_id AS "grantId", client_id AS "clientId", login, scopes, resource,
            expires_at AS "expiresAt", rotated_at AS "rotatedAt"
     FROM oauth_tokens WHERE token_hash = ?`,
    [tokenHash],
  );
  return row ?? null;
}

/** Marks a refresh token traded; false when it already was (two refreshes racing: only one wins). */
export async function markRefreshRotated(sql: Sql, tokenHash: string, now: number): Promise<boolean> {
  return (
    (
      await sql.run(
        "UPDATE oauth_tokens SET rotated_at = ? WHERE token_hash = ? AND kind = 'refresh' AND rotated_at IS NULL",
        [now, tokenHash],
      )
    ).changes > 0
  );
}

/** Deletes every token of one sign-in; returns how many. */
export async function deleteGrantTokens(sql: Sql, grantId: string): Promise<number> {
  return (await sql.run('DELETE FROM oauth_tokens WHERE grant_id = ?', [grantId])).changes;
}

/** Deletes every token and unused code of a user; returns how many tokens. */
export async function deleteUserTokens(sql: Sql, login: string): Promise<number> {
  return sql.tx(async (t) => {
    await t.run('DELETE FROM oauth_codes WHERE login = ?', [login]);
    await deleteUserConsoleSessions(t, login);
    return (await t.run('DELETE FROM oauth_tokens WHERE login = ?', [login])).changes;
  });
}

/** Drops codes and tokens that expired before `now`. */
export async function deleteExpired(sql: Sql, now: number): Promise<void> {
  await sql.tx(async (t) => {
    await t.run('DELETE FROM oauth_codes WHERE expires_at < ?', [now]);
    await t.run('DELETE FROM oauth_tokens WHERE expires_at < ?', [now]);
  });
}
