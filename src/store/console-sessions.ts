// Rows of the console_sessions table: a signed-in person's session, by the hash of its cookie's secret (never the
// secret), with its user and when it ends.
import type { Sql } from './sql.js';

export interface ConsoleSessionRow {
  login: string;
  /** ms since the epoch. */
  expiresAt: number;
}

export async function insertConsoleSession(
  sql: Sql,
  s: { idHash: string; login: string; createdAt: string; expiresAt: number },
): Promise<void> {
  await sql.run(
    'INSERT INTO console_sessions (id_hash, login, created_at, expires_at) VALUES (@idHash, @login, @createdAt, @expiresAt)',
    { ...s },
  );
}

/** The session stored under this hash that has not expired at `now`, or null. */
export async function liveConsoleSession(sql: Sql, idHash: string, now: number): Promise<ConsoleSessionRow | null> {
  const row = await sql.get<ConsoleSessionRow>(
    'SELECT login, expires_at AS "expiresAt" FROM console_sessions WHERE id_hash = ? AND expires_at > ?',
    [idHash, now],
  );
  return row ? { login: row.login, expiresAt: Number(row.expiresAt) } : null;
}

export async function deleteConsoleSession(sql: Sql, idHash: string): Promise<void> {
  await sql.run('DELETE FROM console_sessions WHERE id_hash = ?', [idHash]);
}

/** Forgets sessions that ended before `now`; how many. */
export async function deleteExpiredConsoleSessions(sql: Sql, now: number): Promise<number> {
  return (await sql.run('DELETE FROM console_sessions WHERE expires_at <= ?', [now])).changes;
}

/** Ends every session of a user (their password or token changed, their tokens were revoked, they were removed). */
export async function deleteUserConsoleSessions(sql: Sql, login: string): Promise<number> {
  return (await sql.run('DELETE FROM console_sessions WHERE login = ?', [login])).changes;
}
