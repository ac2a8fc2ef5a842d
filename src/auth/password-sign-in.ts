// Signing in with a login and password, the one way every sign-in form (the OAuth page, the console) checks them:
// scrypt through passwords.ts, with the limit of failed attempts kept here, so guesses on one form count against
// the other too when both share this object. The limits hold under concurrency: an attempt is counted as a failure
// before its password is checked (and forgiven when it succeeds), the checks of one address run one at a time, and
// the process runs at most a few checks at once, so a burst neither guesses past the limits nor makes another
// person's sign-in wait behind it.
import { availableParallelism } from 'node:os';
import type { User } from '../model/users.js';
import type { Sql } from '../store/sql.js';
import { CheckSlots } from './check-slots.js';
import { AttemptLimiter } from './oauth/attempt-limiter.js';
import { PasswordHasher } from './passwords.js';

const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Failures of one login (from anywhere) before each further try of it is slowed, and the longest slowdown. */
const FREE_FAILURES_PER_LOGIN = 5;
const MAX_SLOWDOWN_MS = 4000;
/** How long a check waits for one of the process's slots before it is turned away with a 429. */
const SLOT_WAIT_MS = 2000;

/** Password checks one process runs at once: each takes a thread of the pool and 128 MiB for a few hundred ms. */
export const PASSWORD_CHECKS_AT_ONCE = Math.max(2, availableParallelism());
const processSlots = new CheckSlots(PASSWORD_CHECKS_AT_ONCE, SLOT_WAIT_MS);

export type SignInResult =
  | { user: User }
  | { error: 'invalid_credentials' }
  /** `busy`: turned away because the process was checking as many passwords as it does at once, not for failures. */
  | { error: 'rate_limited'; retryAfter: number; busy?: true };

export interface PasswordSignInOptions {
  sql: Sql;
  /** How passwords are checked (default: at OWASP's cost). */
  passwords?: PasswordHasher;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /** Failed sign-ins allowed per login and address, and per address, in 15 minutes (default 5 and 20). */
  maxFailuresPerLoginAndAddress?: number;
  maxFailuresPerAddress?: number;
  /** The slots of password checks (default: the process's, PASSWORD_CHECKS_AT_ONCE, shared by every instance). */
  slots?: CheckSlots;
}

/** What a sign-in page says of a refusal by the limits. */
export function signInLimitMessage(r: { retryAfter: number; busy?: true }): string {
  if (r.busy) return `Too many sign-ins at once. Try again in ${r.retryAfter} s.`;
  return `Too many failed sign-ins. Try again in ${Math.ceil(r.retryAfter / 60)} minute(s).`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class PasswordSignIn {
  private readonly sql: Sql;
  private readonly passwords: PasswordHasher;
  private readonly byLoginAndAddress: AttemptLimiter;
  private readonly byAddress: AttemptLimiter;
  private readonly byLogin: AttemptLimiter;
  private readonly slots: CheckSlots;
  /** The last check queued per address: the next one of that address waits for it. */
  private readonly lines = new Map<string, Promise<unknown>>();

  constructor(opts: PasswordSignInOptions) {
    this.sql = opts.sql;
    this.passwords = opts.passwords ?? new PasswordHasher();
    const windowMs = FAILURE_WINDOW_MS;
    const now = opts.now ?? Date.now;
    this.byLoginAndAddress = new AttemptLimiter({ max: opts.maxFailuresPerLoginAndAddress ?? 5, windowMs, now });
    this.byAddress = new AttemptLimiter({ max: opts.maxFailuresPerAddress ?? 20, windowMs, now });
    this.byLogin = new AttemptLimiter({ max: Number.MAX_SAFE_INTEGER, windowMs, now });
    this.slots = opts.slots ?? processSlots;
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
    // Counted before the check: while it runs, it is a failure for every attempt that comes after it.
    const counted: Array<[AttemptLimiter, string, number]> = [
      [this.byLoginAndAddress, pairKey, this.byLoginAndAddress.fail(pairKey)],
      [this.byAddress, address, this.byAddress.fail(address)],
      [this.byLogin, loginKey, this.byLogin.fail(loginKey)],
    ];
    const forgive = () => {
      for (const [limiter, key, at] of counted) limiter.forgive(key, at);
    };
    return this.inLine(address, async (): Promise<SignInResult> => {
      if (failures >= FREE_FAILURES_PER_LOGIN)
        await sleep(Math.min(MAX_SLOWDOWN_MS, 250 * 2 ** (failures - FREE_FAILURES_PER_LOGIN)));
      const release = await this.slots.acquire();
      if (!release) {
        forgive(); // no password was checked: no guess to count
        return { error: 'rate_limited', retryAfter: 1, busy: true };
      }
      let user: User | null;
      try {
        user = await this.passwords.verify(this.sql, login, password);
      } finally {
        release();
      }
      if (!user) return { error: 'invalid_credentials' };
      forgive();
      this.byLoginAndAddress.reset(pairKey);
      return { user };
    });
  }

  /** Runs `check` after every earlier check of the address has ended: one address, one check at a time. */
  private async inLine<T>(address: string, check: () => Promise<T>): Promise<T> {
    const before = this.lines.get(address);
    const mine = (before ?? Promise.resolve()).then(check);
    const tail = mine.catch(() => undefined);
    this.lines.set(address, tail);
    try {
      return await mine;
    } finally {
      if (this.lines.get(address) === tail) this.lines.delete(address);
    }
  }
}
