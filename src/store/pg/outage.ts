// A PostgreSQL server that stops answering for a while (a restart, a failover) must pause the service, not fail
// it: a statement that meets a lost connection is tried again until the server answers or the wait runs out, and
// the store says meanwhile that it is degraded (what /healthz shows). A transaction is run again only when its
// connection was lost before its COMMIT went out (the server rolled it back); a COMMIT whose answer was lost is an
// error, as whether it was written is unknown.
import { setTimeout as sleep } from 'node:timers/promises';
import { COMMIT_UNKNOWN } from '../sql.js';

export { COMMIT_UNKNOWN };

/** SQLSTATE classes and codes, and socket errors, that mean the connection (not the statement) failed. */
const LOST_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOENT', // the unix socket is gone while the server is down
  'EPIPE',
  'ETIMEDOUT',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
const LOST_MESSAGES = /Connection terminated|connection (?:is )?closed|Client has encountered a connection error/i;

/** Whether err (or its cause) is a lost or refused connection to the server. */
export function isConnectionLoss(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | null, i = 0; e && i < 4; i++) {
    if (e.code === COMMIT_UNKNOWN) return false;
    if (typeof e.code === 'string' && LOST_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && LOST_MESSAGES.test(e.message)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

export interface OutageState {
  /** When the server stopped answering (ms since the epoch). */
  since: number;
  /** What the last try met. */
  reason: string;
}

export interface OutageOptions {
  /** How long a statement waits for the server to come back before its error is thrown (default 60 s). */
  maxWaitMs?: number;
  /** Told when the server stops answering, and when it answers again. */
  onChange?: (event: 'lost' | 'back', state: OutageState) => void;
}

/** The outage state of one pool, and the waiting every statement of the store does through it. */
export class PgOutage {
  private state: OutageState | null = null;
  /** When the last outage ended (ms since the epoch); null before any. */
  endedAt: number | null = null;
  private readonly maxWaitMs: number;

  constructor(private readonly opts: OutageOptions = {}) {
    this.maxWaitMs = opts.maxWaitMs ?? 60_000;
  }

  /** Null while the server answers. */
  current(): OutageState | null {
    return this.state;
  }

  /** Runs fn, again after a lost connection (waiting 100 ms, doubling to 1 s) until it answers or the wait runs out. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
      try {
        const result = await fn();
        this.back();
        return result;
      } catch (err) {
        if (!isConnectionLoss(err)) {
          this.back();
          throw err;
        }
        this.lost(err);
        if (Date.now() - started + wait > this.maxWaitMs) throw err;
        await sleep(wait);
      }
    }
  }

  private lost(err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    if (this.state) {
      this.state.reason = reason;
      return;
    }
    this.state = { since: Date.now(), reason };
    this.opts.onChange?.('lost', this.state);
  }

  private back(): void {
    if (!this.state) return;
    const was = this.state;
    this.state = null;
    this.endedAt = Date.now();
    this.opts.onChange?.('back', was);
  }
}
