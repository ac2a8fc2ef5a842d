// Rows of the users table: a login, a role, and the sha256 hash of the user's bearer token. A user's sessions and
// OAuth grants go with the user, and a changed token or password ends the sessions.
import type { User } from '../model/users.js';
import { deleteUserConsoleSessions } from './console-sessions.js';
import type { Sql } from './sql.js';

/**
 * Inserts a user; false when the login is taken, in any letter case (`ADMIN` beside `admin` would be another
 * account that reads the same). One statement, so the check and the insert do not race in one database.
 */
export async function insertUser(sql: Sql, login: string, role: string, tokenHash: string): Promise<boolean> {
  return sql.tx(async (t) => {
    const res = await t.run(
      'INSERT INTO users (login, role, token_hash, created_at) SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM users WHERE lower(login) = lower(?)) ON CONFLICT (login) DO NOTHING',
      [login, role, tokenHash, new Date().toISOString(), login],
    );
    if (res.changes === 0) return false;
    // A new user starts with nothing: rows an earlier user of this login left behind (deleted with the cascade
    // off, as by hand in the sqlite3 shell) must not become the new user's sessions or grants.
    await deleteGrantsOf(t, login);
    return true;
  });
}

/** Deletes a user's console sessions, OAuth codes and tokens; the counts of sessions and tokens. */
async function deleteGrantsOf(t: Sql, login: string): Promise<{ sessions: number; tokens: number }> {
  const sessions = await deleteUserConsoleSessions(t, login);
  await t.run('DELETE FROM oauth_codes WHERE login = ?', [login]);
  const tokens = (await t.run('DELETE FROM oauth_tokens WHERE login = ?', [login])).changes;
  return { sessions, tokens };
}

/** Deletes a user with their sessions, OAuth codes and tokens, in one transaction; null when there is no such user. */
export async function deleteUser(sql: Sql, login: string): Promise<{ sessions: number; tokens: number } | null> {
  return sql.tx(async (t) => {
    const ended = await deleteGrantsOf(t, login);
    return (await t.run('DELETE FROM users WHERE login = ?', [login])).changes > 0 ? ended : null;
  });
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
  // A new token ends the user's console sessions too: a reset is what one does when something leaked.
  return sql.tx(async (t) => {
    const set = (await t.run('UPDATE users SET token_hash = ? WHERE login = ?', [tokenHash, login])).changes > 0;
    if (set) await deleteUserConsoleSessions(t, login);
    return set;
  });
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
