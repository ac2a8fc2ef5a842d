// Users' passwords for the OAuth sign-in page: scrypt hashes (node:crypto) with a random salt, checked in
// constant time. An unknown login costs the same scrypt run as a known one, so timing tells no logins apart.
// A hash made with older parameters is replaced at the user's next successful sign-in, when the password is known.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { User } from '../model/users.js';
import type { Sql } from '../store/sql.js';
import { replacePasswordHash, setPasswordHash, userWithPasswordHash } from '../store/oauth.js';
import { UserError } from './users.js';

/** OWASP's minimum for scrypt, N = 2^17, r = 8, p = 1: 128 MiB and a few hundred ms per check. */
export const SCRYPT_PARAMS = { N: 131072, r: 8, p: 1 } as const;
const KEY_LEN = 32;
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 1024;

function derive(password: string, salt: Buffer, o: { N: number; r: number; p: number }): Promise<Buffer> {
  const opts: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: 128 * o.N * o.r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LEN, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt b64>$<key b64>`: the parameters travel with the hash, so they can grow later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, SCRYPT_PARAMS);
  return `scrypt$${SCRYPT_PARAMS.N}$${SCRYPT_PARAMS.r}$${SCRYPT_PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (!m) return null;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N > 2 ** 20 || r > 32 || p > 16) return null;
  return { N, r, p, salt: Buffer.from(m[4]!, 'base64'), key: Buffer.from(m[5]!, 'base64') };
}

/** True when `password` matches the stored hash; false for a malformed one. */
export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const h = parseHash(stored);
  if (!h) return false;
  const got = await derive(password, h.salt, h);
  return got.length === h.key.length && timingSafeEqual(got, h.key);
}

/** Whether a stored hash was made with other parameters than today's (so it is made again at the next sign-in). */
export function hashNeedsRehash(stored: string): boolean {
  const h = parseHash(stored);
  return !h || h.N !== SCRYPT_PARAMS.N || h.r !== SCRYPT_PARAMS.r || h.p !== SCRYPT_PARAMS.p;
}

export function checkPasswordRules(password: string): void {
  if (password.length < PASSWORD_MIN) throw new UserError(`password: must be at least ${PASSWORD_MIN} characters`);
  if (password.length > PASSWORD_MAX) throw new UserError(`password: must be at most ${PASSWORD_MAX} characters`);
}

/** Sets (replaces) a user's sign-in password. */
export async function setPassword(sql: Sql, login: string, password: string): Promise<void> {
  checkPasswordRules(password);
  const hash = await hashPassword(password);
  if (!(await setPasswordHash(sql, login, hash))) throw new UserError(`login "${login}": no such user`);
}

let dummyHash: Promise<string> | null = null;

/**
 * The user when login and password match, else null (unknown login, no password set, or a wrong one). A match on
 * a hash with older parameters stores a new hash of the same password, unless the password was changed meanwhile.
 */
export async function verifyPassword(sql: Sql, login: string, password: string): Promise<User | null> {
  const row = login.length <= 60 && password.length <= PASSWORD_MAX ? await userWithPasswordHash(sql, login) : null;
  if (!row?.passwordHash) {
    dummyHash ??= hashPassword('not a password of anyone');
    await passwordMatches(password.slice(0, PASSWORD_MAX), await dummyHash);
    return null;
  }
  if (!(await passwordMatches(password, row.passwordHash))) return null;
  if (hashNeedsRehash(row.passwordHash))
    await replacePasswordHash(sql, row.login, row.passwordHash, await hashPassword(password));
  return { login: row.login, role: row.role };
}
