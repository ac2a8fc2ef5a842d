// Rows of the users table: a login, a role, and the sha256 hash of the user's bearer token.
import type { User } from '../model/users.js';
import type { Store } from './store.js';

/** Inserts a user; false when the login is taken. */
export function insertUser(store: Store, login: string, role: string, tokenHash: string): boolean {
  const res = store.db
    .prepare('INSERT INTO users (login, role, token_hash, created_at) VALUES (?, ?, ?, ?) ON CONFLICT(login) DO NOTHING')
    .run(login, role, tokenHash, new Date().toISOString());
  return res.changes > 0;
}

/** Replaces a user's token hash; false when there is no such user. */
export function setUserTokenHash(store: Store, login: string, tokenHash: string): boolean {
  return store.db.prepare('UPDATE users SET token_hash = ? WHERE login = ?').run(tokenHash, login).changes > 0;
}

export function getUser(store: Store, login: string): User | null {
  const row = store.prepare('SELECT login, role FROM users WHERE login = ?').get(login) as User | undefined;
  return row ?? null;
}

export function listUsers(store: Store): User[] {
  return store.db.prepare('SELECT login, role FROM users ORDER BY login').all() as User[];
}

/** The user stored with this token hash, with the stored hash (for a constant-time comparison by the caller). */
export function userByTokenHash(store: Store, tokenHash: string): (User & { tokenHash: string }) | null {
  const row = store.prepare('SELECT login, role, token_hash FROM users WHERE token_hash = ?').get(tokenHash) as
    | (User & { token_hash: string })
    | undefined;
  return row ? { login: row.login, role: row.role, tokenHash: row.token_hash } : null;
}
