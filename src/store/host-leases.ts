// Per-host politeness held across the workers of a crawl (src/model/host-pace.ts decides; this reads the host's
// state, asks, and writes the answer in one transaction). A request to a host takes a slot token (host, slot number
// below the concurrency) under a lease, so a dead worker's slot comes back when its lease runs out; its start time is
// reserved from the host's next-start time, which moves on by the spacing; a 429/503 + Retry-After pauses the host
// for every worker. Scoped to one crawl: its slow-downs end with it.
import { randomBytes } from 'node:crypto';
import {
  decideStart,
  FRESH_PACE,
  slowDown,
  type HostLimits,
  type HostPace,
  type LiveSlot,
} from '../model/host-pace.js';
import type { Sql } from './sql.js';

export interface HostSlot {
  crawlId: number;
  host: string;
  slot: number;
  /** Frees this slot, and only this one (a slot taken again after its lease ran out has another). */
  token: string;
  /** When the request may start (now, or later for the spacing): the caller waits until then. */
  startAt: number;
  leaseUntil: number;
}

export type Acquired = { kind: 'slot'; slot: HostSlot } | { kind: 'wait'; waitMs: number; why: 'paused' | 'full' };

const PACE_COLUMNS = `next_start_at AS "nextStartAt", paused_until AS "pausedUntil", slow_downs AS "slowDowns",
  concurrency_cap AS "concurrencyCap", slow_delay_ms AS "slowDelayMs"`;

/** The host's row, created when missing, locked for the rest of the transaction (PostgreSQL; SQLite's lock is the file's). */
async function lockPace(tx: Sql, crawlId: number, host: string): Promise<HostPace> {
  await tx.run('INSERT INTO host_pace (crawl_id, host) VALUES (?, ?) ON CONFLICT (crawl_id, host) DO NOTHING', [
    crawlId,
    host,
  ]);
  const row = await tx.get<HostPace>(
    `SELECT ${PACE_COLUMNS} FROM host_pace WHERE crawl_id = ? AND host = ?${tx.dialect === 'pg' ? ' FOR UPDATE' : ''}`,
    [crawlId, host],
  );
  return row ?? { ...FRESH_PACE };
}

/**
 * Asks for a slot to send one request to `host`: a slot whose request starts at `startAt`, held until released or
 * until its lease (leaseMs past startAt) runs out; or how long to wait before asking again.
 */
export async function acquireHostSlot(
  sql: Sql,
  o: {
    crawlId: number;
    host: string;
    worker: string;
    limits: HostLimits;
    leaseMs: number;
    now?: number;
    pollMs?: number;
  },
): Promise<Acquired> {
  return sql.rowTx(async (tx) => {
    const pace = await lockPace(tx, o.crawlId, o.host);
    // The time once the host's lock is held (waiting for it may have taken a while).
    const now = o.now ?? Date.now();
    // A dead holder's slot comes back here.
    await tx.run('DELETE FROM host_slots WHERE crawl_id = ? AND host = ? AND lease_until <= ?', [
      o.crawlId,
      o.host,
      now,
    ]);
    const live = await tx.all<LiveSlot>(
      'SELECT slot, lease_until AS "leaseUntil" FROM host_slots WHERE crawl_id = ? AND host = ?',
      [o.crawlId, o.host],
    );
    const d = decideStart({ now, limits: o.limits, pace, live, pollMs: o.pollMs });
    if (d.kind === 'wait') return d;
    const slot: HostSlot = {
      crawlId: o.crawlId,
      host: o.host,
      slot: d.slot,
      token: randomBytes(12).toString('hex'),
      startAt: d.startAt,
      leaseUntil: d.startAt + o.leaseMs,
    };
    await tx.run(
      'INSERT INTO host_slots (crawl_id, host, slot, token, holder, lease_until) VALUES (?, ?, ?, ?, ?, ?)',
      [o.crawlId, o.host, slot.slot, slot.token, o.worker, slot.leaseUntil],
    );
    await tx.run('UPDATE host_pace SET next_start_at = ? WHERE crawl_id = ? AND host = ?', [
      d.nextStartAt,
      o.crawlId,
      o.host,
    ]);
    return { kind: 'slot', slot };
  });
}

/** Frees the slot (the request ended). False when it was no longer held: its lease ran out and it was taken back. */
export async function releaseHostSlot(sql: Sql, slot: Pick<HostSlot, 'token'>): Promise<boolean> {
  return (await sql.rowTx((tx) => tx.run('DELETE FROM host_slots WHERE token = ?', [slot.token]))).changes === 1;
}

/** The worker's heartbeat for its slots (a request longer than its lease): leased at least leaseMs from now. */
export async function renewHostSlots(sql: Sql, o: { worker: string; leaseMs: number; now?: number }): Promise<number> {
  const until = (o.now ?? Date.now()) + o.leaseMs;
  return (
    await sql.rowTx((tx) =>
      tx.run('UPDATE host_slots SET lease_until = ? WHERE holder = ? AND lease_until < ?', [until, o.worker, until]),
    )
  ).changes;
}

/**
 * The host answered 429, or 503 with Retry-After: every worker waits `waitMs`, and the host's requests go on with
 * half the concurrency and wider spacing (the model's slowDown). Returns the host's state after.
 */
export async function pauseHost(
  sql: Sql,
  o: { crawlId: number; host: string; limits: HostLimits; waitMs: number; now?: number },
): Promise<HostPace> {
  return sql.rowTx(async (tx) => {
    const pace = await lockPace(tx, o.crawlId, o.host);
    const next = slowDown(pace, o.limits, o.waitMs, o.now ?? Date.now());
    await tx.run(
      'UPDATE host_pace SET paused_until = ?, slow_downs = ?, concurrency_cap = ?, slow_delay_ms = ? WHERE crawl_id = ? AND host = ?',
      [next.pausedUntil, next.slowDowns, next.concurrencyCap, next.slowDelayMs, o.crawlId, o.host],
    );
    return next;
  });
}

/** The host's state and its live slots (for progress and tests). */
export async function hostState(
  sql: Sql,
  crawlId: number,
  host: string,
  now = Date.now(),
): Promise<{ pace: HostPace; live: number }> {
  return sql.snapshot(async (s) => {
    const pace = await s.get<HostPace>(`SELECT ${PACE_COLUMNS} FROM host_pace WHERE crawl_id = ? AND host = ?`, [
      crawlId,
      host,
    ]);
    const live = await s.get<{ n: number }>(
      'SELECT count(*) AS n FROM host_slots WHERE crawl_id = ? AND host = ? AND lease_until > ?',
      [crawlId, host, now],
    );
    return { pace: pace ?? { ...FRESH_PACE }, live: live?.n ?? 0 };
  });
}

/** Forgets a crawl's host state (once the crawl has ended). */
export async function dropHostLeases(sql: Sql, crawlId: number): Promise<void> {
  await sql.tx(async (tx) => {
    await tx.run('DELETE FROM host_slots WHERE crawl_id = ?', [crawlId]);
    await tx.run('DELETE FROM host_pace WHERE crawl_id = ?', [crawlId]);
  });
}
