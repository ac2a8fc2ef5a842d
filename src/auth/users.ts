// Users of the host: a login, a role, and a bearer token that is shown once and stored only as its sha256 hash.
import { ROLES, type Role, type User } from '../model/users.js';
import type { Sql } from '../store/sql.js';
import {
  deleteUser,
  getUser,
  insertUser,
  listUsers,
  loginInAnyCase,
  setUserTokenHash,
  userByTokenHash,
} from '../store/users.js';
import { hashSecret, newSecret, sameHash } from './secrets.js';

export const LOGIN_RE = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,59}$/;
export const USER_TOKEN_PREFIX = 'svc_user_';

export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

function checkLogin(login: string): void {
  if (!LOGIN_RE.test(login))
    throw new UserError(
      `login "${login}": must be 1-60 characters of letters, digits, ".", "_", "@" and "-", starting with a letter or digit`,
    );
}

function checkRole(role: string): asserts role is Role {
  if (!isRole(role)) throw new UserError(`role "${role}": must be one of ${ROLES.join(', ')}`);
}

/** Adds a user and returns its new bearer token (the only time it exists in clear). A taken login, in any letter case, is an error. */
export async function addUser(sql: Sql, login: string, role: Role | string): Promise<string> {
  checkLogin(login);
  checkRole(role);
  const token = newSecret(USER_TOKEN_PREFIX);
  if (!(await insertUser(sql, login, role, hashSecret(token)))) {
    const taken = await loginInAnyCase(sql, login);
    const note = taken && taken !== login ? ` (logins are case-insensitive: "${taken}")` : '';
    throw new UserError(`login "${login}": a user with this login already exists${note}`);
  }
  return token;
}

/** Gives an existing user a new token (the old one stops working, and so do their console sessions) and returns it. */
export async function resetUserToken(sql: Sql, login: string): Promise<string> {
  const token = newSecret(USER_TOKEN_PREFIX);
  if (!(await setUserTokenHash(sql, login, hashSecret(token)))) throw new UserError(`login "${login}": no such user`);
  return token;
}

/**
 * Removes a user with everything of theirs: console sessions, OAuth codes and tokens (the bearer token and the
 * password go with the row). A login added again later starts with nothing. The counts of what was ended.
 */
export async function removeUser(sql: Sql, login: string): Promise<{ sessions: number; tokens: number }> {
  const ended = await deleteUser(sql, login);
  if (!ended) throw new UserError(`login "${login}": no such user`);
  return ended;
}

export { getUser, listUsers };

/** The user this bearer token belongs to, or null. Looked up by hash, then confirmed in constant time. */
export async function userByToken(sql: Sql, token: string): Promise<User | null> {
  if (!token.startsWith(USER_TOKEN_PREFIX)) return null;
  const hash = hashSecret(token);
  const row = await userByTokenHash(sql, hash);
  if (!row || !sameHash(row.tokenHash, hash)) return null;
  return { login: row.login, role: row.role };
}
