// The console's sessions: a random secret in an HttpOnly cookie, stored only as its hash (so a copy of the
// database opens no session), expiring, and checked against the user each time (a deleted user's session is
// gone). The CSRF token of a session's forms is derived from its secret, so any process on the store can check it
// with no key of its own, and it goes stale when the session ends.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { User } from '../model/users.js';
import {
  deleteConsoleSession,
  deleteExpiredConsoleSessions,
  insertConsoleSession,
  liveConsoleSession,
} from '../store/console-sessions.js';
import type { Sql } from '../store/sql.js';
import { getUser } from '../store/users.js';
import { hashSecret, newSecret } from './secrets.js';

export const CONSOLE_SESSION_PREFIX = 'svc_cs_';
/** How long a session lasts from sign-in. */
export const CONSOLE_SESSION_TTL_MS = 8 * 60 * 60 * 1000;
const SECRET_RE = /^svc_cs_[A-Za-z0-9_-]{43}$/;

/** The CSRF token of the forms of the session whose secret is `secret`. */
export function csrfTokenFor(secret: string): string {
  return createHash('sha256').update(`svc console csrf\n${secret}`).digest('base64url');
}

/** Whether `token` is the CSRF token of `secret`, compared in constant time. */
export function csrfTokenMatches(secret: string, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const want = Buffer.from(csrfTokenFor(secret));
  const got = Buffer.from(token);
  return want.length === got.length && timingSafeEqual(want, got);
}

export class ConsoleSessions {
  private readonly now: () => number;
  private lastSweep = 0;

  constructor(
    private readonly sql: Sql,
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** A new session of `login`: its secret (the cookie's value; the only copy) and when it ends. */
  async start(login: string): Promise<{ secret: string; expiresAt: number }> {
    await this.sweep();
    const secret = newSecret(CONSOLE_SESSION_PREFIX);
    const expiresAt = this.now() + CONSOLE_SESSION_TTL_MS;
    await insertConsoleSession(this.sql, {
      idHash: hashSecret(secret),
      login,
      createdAt: new Date(this.now()).toISOString(),
      expiresAt,
    });
    return { secret, expiresAt };
  }

  /** The user of a live session, with its role as stored now; null for an unknown, ended or expired one. */
  async user(secret: string): Promise<User | null> {
    if (!SECRET_RE.test(secret)) return null;
    const row = await liveConsoleSession(this.sql, hashSecret(secret), this.now());
    return row ? getUser(this.sql, row.login) : null;
  }

  async end(secret: string): Promise<void> {
    if (SECRET_RE.test(secret)) await deleteConsoleSession(this.sql, hashSecret(secret));
  }

  /** Expired sessions are forgotten at most once a minute, when a new one starts. */
  private async sweep(): Promise<void> {
    if (this.now() - this.lastSweep < 60_000) return;
    this.lastSweep = this.now();
    await deleteExpiredConsoleSessions(this.sql, this.now());
  }
}
