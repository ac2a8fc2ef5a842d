// Crawl tasks: a crawl handed to a client as a task it polls and cancels. What is stored is what the crawl record
// cannot say: who the task belongs to, which ability started it and with what capability, its timings, whether a
// cancel was asked for, and when the task may be forgotten. Status, counts and the final record are read from the
// crawl each time (it is the truth, updated by whichever process runs it), so the two can never disagree.
import type { Capability } from '../model/users.js';
import type { Sql } from './sql.js';

export interface CrawlTaskRow {
  id: string;
  /** The login of the user who started it. */
  owner: string;
  ability: string;
  capability: Capability;
  crawlId: number;
  createdAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** When a cancel was accepted; null when there was none. */
  cancelledAt: string | null;
  /** When the task may be deleted (the crawl's end + ttlMs); null until its end has been seen. */
  expiresAt: string | null;
}

type NewCrawlTask = Omit<CrawlTaskRow, 'cancelledAt' | 'expiresAt'>;

const COLUMNS = `id, owner, ability, capability, crawl_id AS "crawlId", created_at AS "createdAt", ttl_ms AS "ttlMs",
  poll_interval_ms AS "pollIntervalMs", cancelled_at AS "cancelledAt", expires_at AS "expiresAt"`;

/** PostgreSQL hands bigint columns back as numbers already; this keeps both dialects' rows the same shape. */
function toRow(r: CrawlTaskRow): CrawlTaskRow {
  return { ...r, crawlId: Number(r.crawlId), ttlMs: Number(r.ttlMs), pollIntervalMs: Number(r.pollIntervalMs) };
}

export async function insertCrawlTask(sql: Sql, t: NewCrawlTask): Promise<void> {
  await sql.run(
    `INSERT INTO crawl_tasks (id, owner, ability, capability, crawl_id, created_at, ttl_ms, poll_interval_ms)
     VALUES (@id, @owner, @ability, @capability, @crawlId, @createdAt, @ttlMs, @pollIntervalMs)`,
    { ...t },
  );
}

/** The task `id` of `owner`, or undefined: another user's task is not there for this one. */
export async function ownCrawlTask(sql: Sql, id: string, owner: string): Promise<CrawlTaskRow | undefined> {
  const row = await sql.get<CrawlTaskRow>(`SELECT ${COLUMNS} FROM crawl_tasks WHERE id = ? AND owner = ?`, [id, owner]);
  return row && toRow(row);
}

/** Tasks whose crawl's end has not been seen yet (few: one crawl runs at a time). */
export async function openCrawlTasks(sql: Sql): Promise<CrawlTaskRow[]> {
  return (
    await sql.all<CrawlTaskRow>(`SELECT ${COLUMNS} FROM crawl_tasks WHERE expires_at IS NULL ORDER BY created_at`)
  ).map(toRow);
}

/** Records an accepted cancel; false when the task had one already (the first one stands). */
export async function markCrawlTaskCancelled(sql: Sql, id: string, at: string): Promise<boolean> {
  return (
    (await sql.run('UPDATE crawl_tasks SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL', [at, id])).changes >
    0
  );
}

/** Takes back a cancel that did not stop the crawl (it had ended meanwhile). */
export async function unmarkCrawlTaskCancelled(sql: Sql, id: string): Promise<void> {
  await sql.run('UPDATE crawl_tasks SET cancelled_at = NULL WHERE id = ?', [id]);
}

/** Sets when the task may go, once: the first process to see the crawl's end decides. */
export async function setCrawlTaskExpiry(sql: Sql, id: string, expiresAt: string): Promise<void> {
  await sql.run('UPDATE crawl_tasks SET expires_at = ? WHERE id = ? AND expires_at IS NULL', [expiresAt, id]);
}

/** Deletes the tasks that expired before `now` (ISO 8601); answers how many. */
export async function deleteExpiredCrawlTasks(sql: Sql, now: string): Promise<number> {
  return (await sql.run('DELETE FROM crawl_tasks WHERE expires_at IS NOT NULL AND expires_at <= ?', [now])).changes;
}
