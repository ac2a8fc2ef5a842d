// Rows of the users table: a login, a role, and the sha256 hash of the user's bearer token.
import type { User } from '../model/users.js';
import type { Sql } from './sql.js';

/**
 * Inserts a user; false when the login is taken, in any letter case (`ADMIN` beside `admin` would be another
 * account that reads the same). One statement, so the check and the insert do not race in one database.
 */
export async function insertUser(sql: Sql, login: string, role: string, tokenHash: string): Promise<boolean> {
  const res = await sql.run(
    'INSERT INTO users (login, role, token_hash, created_at) SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM users WHERE lower(login) = lower(?)) ON CONFLICT (login) DO NOTHING',
    [login, role, tokenHash, new Date().toISOString(), login],
  );
  return res.changes > 0;
}

/** The login stored for this one in another letter case, or null. */
export async function loginInAnyCase(sql: Sql, login: string): Promise<string | null> {
  return (
    (
      await sql.get<{ login: string }>('SELECT login FROM users WHERE lower(login) = lower(?) ORDER BY login LIMIT 1', [
        login,
      ])
    )?.login ?? null
  );
}

/** Replaces a user's token hash; false when there is no such user. */
export async function setUserTokenHash(sql: Sql, login: string, tokenHash: string): Promise<boolean> {
  return (await sql.run('UPDATE users SET token_hash = ? WHERE login = ?', [tokenHash, login])).changes > 0;
}

export async function getUser(sql: Sql, login: string): Promise<User | null> {
  return (await sql.get<User>('SELECT login, role FROM users WHERE login = ?', [login])) ?? null;
}

export async function listUsers(sql: Sql): Promise<User[]> {
  return sql.all<User>('SELECT login, role FROM users ORDER BY login');
}

/** The user stored with this token hash, with the stored hash (for a constant-time comparison by the caller). */
export async function userByTokenHash(sql: Sql, tokenHash: string): Promise<(User & { tokenHash: string }) | null> {
  const row = await sql.get<User & { token_hash: string }>(
    'SELECT login, role, token_hash FROM users WHERE token_hash = ?',
    [tokenHash],
  );
  return row ? { login: row.login, role: row.role, tokenHash: row.token_hash } : null;
}
