// Users' passwords for the OAuth sign-in page: scrypt hashes (node:crypto) with a random salt, checked in
// constant time. An unknown login costs the same scrypt run as a known one, so timing tells no logins apart.
// A hash made with older parameters is replaced at the user's next successful sign-in, when the password is known.
// The cost is an option of a PasswordHasher (OWASP's by default, the only one svc's commands use): tests that sign
// in many times pass a small one, since the cost is what makes guessing slow, not what they test.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { User } from '../model/users.js';
import type { Sql } from '../store/sql.js';
import { replacePasswordHash, setPasswordHash, userWithPasswordHash } from '../store/oauth.js';
import { UserError } from './users.js';

/** scrypt's cost parameters: N (CPU and memory), r (block size), p (parallelism). */
export interface PasswordCost {
  N: number;
  r: number;
  p: number;
}

/** OWASP's minimum for scrypt, N = 2^17, r = 8, p = 1: 128 MiB and a few hundred ms per check. */
export const SCRYPT_PARAMS: PasswordCost = { N: 131072, r: 8, p: 1 };
const KEY_LEN = 32;
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 1024;

function derive(password: string, salt: Buffer, o: PasswordCost): Promise<Buffer> {
  const opts: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: 128 * o.N * o.r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LEN, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

interface ParsedHash extends PasswordCost {
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

/** True when `password` matches the stored hash (made with whatever parameters it names); false for a malformed one. */
export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const h = parseHash(stored);
  if (!h) return false;
  const got = await derive(password, h.salt, h);
  return got.length === h.key.length && timingSafeEqual(got, h.key);
}

export function checkPasswordRules(password: string): void {
  if (password.length < PASSWORD_MIN) throw new UserError(`password: must be at least ${PASSWORD_MIN} characters`);
  if (password.length > PASSWORD_MAX) throw new UserError(`password: must be at most ${PASSWORD_MAX} characters`);
}

/** Hashes, sets and checks passwords at one cost: `cost` (SCRYPT_PARAMS unless told). */
export class PasswordHasher {
  readonly cost: PasswordCost;
  /** The hash an unknown login is checked against, made once. */
  private dummyHash: Promise<string> | null = null;

  constructor(cost: PasswordCost = SCRYPT_PARAMS) {
    this.cost = { N: cost.N, r: cost.r, p: cost.p };
  }

  /** `scrypt$N$r$p$<salt b64>$<key b64>`: the parameters travel with the hash, so they can grow later. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const { N, r, p } = this.cost;
    const key = await derive(password, salt, this.cost);
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  /** Whether a stored hash was made with other parameters than this cost (so it is made again at the next sign-in). */
  needsRehash(stored: string): boolean {
    const h = parseHash(stored);
    return !h || h.N !== this.cost.N || h.r !== this.cost.r || h.p !== this.cost.p;
  }

  /** Sets (replaces) a user's sign-in password. */
  async set(sql: Sql, login: string, password: string): Promise<void> {
    checkPasswordRules(password);
    const hash = await this.hash(password);
    if (!(await setPasswordHash(sql, login, hash))) throw new UserError(`login "${login}": no such user`);
  }

  /**
   * The user when login and password match, else null (unknown login, no password set, or a wrong one). A match on
   * a hash with other parameters stores a new hash of the same password, unless the password was changed meanwhile.
   */
  async verify(sql: Sql, login: string, password: string): Promise<User | null> {
    const row = login.length <= 60 && password.length <= PASSWORD_MAX ? await userWithPasswordHash(sql, login) : null;
    if (!row?.passwordHash) {
      this.dummyHash ??= this.hash('not a password of anyone');
      await passwordMatches(password.slice(0, PASSWORD_MAX), await this.dummyHash);
      return null;
    }
    if (!(await passwordMatches(password, row.passwordHash))) return null;
    if (this.needsRehash(row.passwordHash))
      await replacePasswordHash(sql, row.login, row.passwordHash, await this.hash(password));
    return { login: row.login, role: row.role };
  }
}
