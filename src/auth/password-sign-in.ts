// Signing in with a login and password, the one way every sign-in form (the OAuth page, the console) checks them:
// scrypt through passwords.ts, with the limit of failed attempts kept here, so guesses on one form count against
// the other too when both share this object.
import type { User } from '../model/users.js';
import type { Sql } from '../store/sql.js';
import { AttemptLimiter } from './oauth/attempt-limiter.js';
import { PasswordHasher } from './passwords.js';

const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Failures of one login (from anywhere) before each further try of it is slowed, and the longest slowdown. */
const FREE_FAILURES_PER_LOGIN = 5;
const MAX_SLOWDOWN_MS = 4000;

export type SignInResult =
  | { user: User }
  | { error: 'invalid_credentials' }
  | { error: 'rate_limited'; retryAfter: number };

export interface PasswordSignInOptions {
  sql: Sql;
  /** How passwords are checked (default: at OWASP's cost). */
  passwords?: PasswordHasher;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /** Failed sign-ins allowed per login and address, and per address, in 15 minutes (default 5 and 20). */
  maxFailuresPerLoginAndAddress?: number;
  maxFailuresPerAddress?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class PasswordSignIn {
  private readonly sql: Sql;
  private readonly passwords: PasswordHasher;
  private readonly byLoginAndAddress: AttemptLimiter;
  private readonly byAddress: AttemptLimiter;
  private readonly byLogin: AttemptLimiter;

  constructor(opts: PasswordSignInOptions) {
    this.sql = opts.sql;
    this.passwords = opts.passwords ?? new PasswordHasher();
    const windowMs = FAILURE_WINDOW_MS;
    const now = opts.now ?? Date.now;
    this.byLoginAndAddress = new AttemptLimiter({ max: opts.maxFailuresPerLoginAndAddress ?? 5, windowMs, now });
    this.byAddress = new AttemptLimiter({ max: opts.maxFailuresPerAddress ?? 20, windowMs, now });
    this.byLogin = new AttemptLimiter({ max: Number.MAX_SAFE_INTEGER, windowMs, now });
  }

  /**
   * Checks a login and password. Failures count per login and address (5 lock that pair, not the login for
   * everyone) and per address (20 lock the address); past 5 failures of a login from anywhere, each further try
   * of it waits a little longer, so guessing from many addresses stays slow while the owner can still sign in.
   */
  async signIn(login: string, password: string, address: string): Promise<SignInResult> {
    const loginKey = login.toLowerCase();
    const pairKey = `${loginKey}\n${address}`;
    const wait = Math.max(this.byLoginAndAddress.retryAfter(pairKey), this.byAddress.retryAfter(address));
    if (wait > 0) return { error: 'rate_limited', retryAfter: wait };
    const failures = this.byLogin.count(loginKey);
    if (failures >= FREE_FAILURES_PER_LOGIN)
      await sleep(Math.min(MAX_SLOWDOWN_MS, 250 * 2 ** (failures - FREE_FAILURES_PER_LOGIN)));
    const user = await this.passwords.verify(this.sql, login, password);
    if (!user) {
      this.byLoginAndAddress.fail(pairKey);
      this.byAddress.fail(address);
      this.byLogin.fail(loginKey);
      return { error: 'invalid_credentials' };
    }
    this.byLoginAndAddress.reset(pairKey);
    return { user };
  }
}
