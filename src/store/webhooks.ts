// The webhook outbox (migration 9): deliveries written with a crawl's end, claimed with a lease, sent, recorded.
import type { DeliveryStatus, WebhookDelivery, WebhookEvent } from '../model/webhooks.js';
import type { Sql } from './sql.js';

interface DeliveryRow {
  id: string;
  crawl_id: number | null;
  event: WebhookEvent;
  url: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  last_error: string | null;
  next_attempt_at: number | null;
  created_at: number;
  delivered_at: number | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toDelivery(r: DeliveryRow): WebhookDelivery {
  return {
    id: r.id,
    event: r.event,
    url: r.url,
    crawl: r.crawl_id,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
    createdAt: iso(r.created_at)!,
    deliveredAt: iso(r.delivered_at),
  };
}

export interface NewDelivery {
  id: string;
  project: string;
  crawlId: number | null;
  event: WebhookEvent;
  url: string;
  body: string;
  /** ms since the epoch: created, and due at once. */
  now: number;
}

/** Adds a pending delivery, due at once. Call inside the transaction that records the crawl's end. */
export async function insertDelivery(sql: Sql, d: NewDelivery): Promise<void> {
  await sql.run(
    `INSERT INTO webhook_deliveries (id, seq, project, crawl_id, event, url, body, status, next_attempt_at, created_at)
     VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM webhook_deliveries), ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    [d.id, d.project, d.crawlId, d.event, d.url, d.body, d.now, d.now],
  );
}

/** A delivery taken by one process to send: the exact body and the attempt it is on. */
export interface ClaimedDelivery {
  id: string;
  url: string;
  event: WebhookEvent;
  body: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
  createdAt: number;
}

/**
 * Takes up to `limit` deliveries that are due — pending with next_attempt_at reached, or sending under a lease that
 * ran out (its process died) — marking them sending until `now + leaseMs` and counting the attempt.
 */
export async function claimDueDeliveries(
  sql: Sql,
  project: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  // One statement: a single UPDATE is atomic, so two processes never take the same one (PostgreSQL: rows another
  // claimer holds are skipped).
  const lock = sql.dialect === 'pg' ? ' FOR UPDATE SKIP LOCKED' : '';
  const rows = await sql.all<{
    seq: number;
    id: string;
    url: string;
    event: WebhookEvent;
    body: string;
    attempts: number;
    created_at: number;
  }>(
    `UPDATE webhook_deliveries SET status = 'sending', lease_until = @lease, attempts = attempts + 1
       WHERE id IN (SELECT id FROM webhook_deliveries WHERE project = @project AND
           ((status = 'pending' AND next_attempt_at <= @now) OR (status = 'sending' AND lease_until <= @now))
         ORDER BY seq LIMIT @limit${lock})
       RETURNING seq, id, url, event, body, attempts, created_at`,
    { project, now, limit, lease: now + leaseMs },
  );
  // RETURNING has no order: the oldest first, as they were written.
  return rows
    .sort((a, b) => a.seq - b.seq)
    .map((r) => ({ id: r.id, url: r.url, event: r.event, body: r.body, attempt: r.attempts, createdAt: r.created_at }));
}

/** The outcome of one attempt: delivered, another attempt at `nextAttemptAt`, or failed for good. */
export type AttemptOutcome =
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptAt: number; error: string }
  | { status: 'failed'; error: string };

/** Records the outcome of the attempt on a claimed delivery. */
export async function recordAttempt(sql: Sql, id: string, outcome: AttemptOutcome, now: number): Promise<void> {
  if (outcome.status === 'delivered') {
    await sql.run(
      `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = ?, lease_until = NULL, next_attempt_at = NULL WHERE id = ?`,
      [now, id],
    );
  } else if (outcome.status === 'pending') {
    await sql.run(
      `UPDATE webhook_deliveries SET status = 'pending', last_error = ?, next_attempt_at = ?, lease_until = NULL WHERE id = ?`,
      [outcome.error, outcome.nextAttemptAt, id],
    );
  } else {
    await sql.run(
      `UPDATE webhook_deliveries SET status = 'failed', last_error = ?, next_attempt_at = NULL, lease_until = NULL WHERE id = ?`,
      [outcome.error, id],
    );
  }
}

/** Deliveries of the project, newest first. */
export async function listDeliveries(
  sql: Sql,
  project: string,
  limit: number,
  offset: number,
): Promise<WebhookDelivery[]> {
  const rows = await sql.all<DeliveryRow>(
    `SELECT id, crawl_id, event, url, body, status, attempts, last_error, next_attempt_at, created_at, delivered_at
       FROM webhook_deliveries WHERE project = ? ORDER BY seq DESC LIMIT ? OFFSET ?`,
    [project, limit, offset],
  );
  return rows.map(toDelivery);
}

/** Forgets delivered and failed deliveries created before `before` (ms). */
export async function pruneDeliveries(sql: Sql, project: string, before: number): Promise<number> {
  return (
    await sql.run(
      `DELETE FROM webhook_deliveries WHERE project = ? AND status IN ('delivered','failed') AND created_at < ?`,
      [project, before],
    )
  ).changes;
}
