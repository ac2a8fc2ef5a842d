// Crawl records: created queued, moved through running to an end state, read newest first; owned by the process
// that runs them through a heartbeat.
import { randomUUID } from 'node:crypto';
import {
  crawlEnded,
  type CrawlMode,
  type CrawlRecord,
  type CrawlStats,
  type CrawlStatus,
  type CrawlTrigger,
} from '../model/types.js';
import type { ProblemCounts } from '../model/counts.js';
import { PENDING_AFTER_CRAWLS } from './history.js';
import type { Sql } from './sql.js';

interface CrawlRow {
  id: number;
  mode: CrawlMode;
  status: CrawlStatus;
  urls: string | null;
  started_at: string | null;
  finished_at: string | null;
  pages: number;
  links: number;
  errors: number;
  stats: string | null;
  error: string | null;
  triggered_by: CrawlTrigger;
  not_modified: number;
  unchanged: number;
  retries: number | null;
  report_ready_at: string | null;
  indexed_at: string | null;
  /** Migration 45: the problem counts of its final report (JSON), or null. */
  problems?: string | null;
}

function toRecord(r: CrawlRow): CrawlRecord {
  const stats: CrawlStats = { pages: r.pages, links: r.links, errors: r.errors };
  // Only crawls that kept stored pages say so (older records and first crawls look as they always did).
  if (r.not_modified) stats.notModified = r.not_modified;
  if (r.unchanged) stats.unchanged = r.unchanged;
  if (r.retries) stats.retries = r.retries;
  if (r.stats) stats.targets = JSON.parse(r.stats) as CrawlStats['targets'];
  if (r.problems) {
    const p = JSON.parse(r.problems) as ProblemCounts;
    stats.problemLinks = p.problemLinks;
    stats.occurrences = p.occurrences;
    stats.reasons = p.reasons;
  }
  const rec: CrawlRecord = {
    id: r.id,
    mode: r.mode,
    status: r.status,
    trigger: r.triggered_by,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    reportReadyAt: r.report_ready_at ?? null,
    indexedAt: r.indexed_at ?? null,
    stats,
  };
  if (r.urls) rec.urls = JSON.parse(r.urls) as string[];
  if (r.error) rec.error = r.error;
  return rec;
}

/** A crawl whose owner has not beaten for this long is dead. */
export const CRAWL_DEAD_AFTER_MS = 30_000;

/** This process's instance id: random, so a reused PID is never taken for the owner. */
const INSTANCE_ID = randomUUID();

export interface CrawlOwner {
  /** Default INSTANCE_ID. */
  instance?: string;
  /** Milliseconds since the epoch; default now. */
  now?: number;
  /** Default CRAWL_DEAD_AFTER_MS. */
  deadAfterMs?: number;
}

/**
 * A person's crawl (REST, ability, CLI): created queued and owned by `owner`, to run at once, unless one of the
 * project is running or claimed with a live owner; returns null then (a conflict). Queued crawls nobody has claimed
 * yet do not block it: they wait for it. Crawls whose owner stopped beating are marked failed first. The check and the insert share one
 * IMMEDIATE transaction, so two starts at once cannot both win.
 */
export async function createCrawl(
  sql: Sql,
  project: string,
  mode: CrawlMode,
  urls?: string[],
  owner: CrawlOwner = {},
): Promise<CrawlRecord | null> {
  const now = owner.now ?? Date.now();
  return sql.tx(async (t) => {
    await failDeadCrawls(t, now - (owner.deadAfterMs ?? CRAWL_DEAD_AFTER_MS), project);
    if (await activeCrawl(t, project)) return null;
    const row = await t.get<CrawlRow>(
      `INSERT INTO crawls (project, mode, status, urls, started_at, owner_pid, owner_instance, heartbeat_at) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?) RETURNING *`,
      [
        project,
        mode,
        urls ? JSON.stringify(urls) : null,
        new Date(now).toISOString(),
        process.pid,
        owner.instance ?? INSTANCE_ID,
        now,
      ],
    );
    return toRecord(row!);
  });
}

/** Queued or running with an owner: a queued crawl nobody has claimed has no owner to die, and waits. */
const OWNED = `(status = 'running' OR (status = 'queued' AND owner_instance IS NOT NULL))`;

/**
 * A shared crawl (its frontier open and planned) that another worker has reported on since `before` (the same
 * bound): someone alive can take its lead over, so it is not failed for its lead's silence. Its one parameter is
 * `before`.
 */
const HAS_LIVE_SHARER = `EXISTS (SELECT 1 FROM frontier_crawls f JOIN frontier_workers w ON w.crawl_id = f.crawl_id
  WHERE f.crawl_id = crawls.id AND f.plan IS NOT NULL AND w.seen_at >= ?)`;

/** The statement of failDeadCrawls, for the SQLite store's synchronous clean-up at open. */
export function failDeadCrawlsStatement(
  before: number,
  project?: string,
): { sql: string; params: (string | number | null)[] } {
  return {
    sql: `UPDATE crawls SET status = 'failed', finished_at = COALESCE(finished_at, ?), error = COALESCE(error, 'owner stopped answering: its process ended or hangs')
       WHERE ${OWNED} AND (CAST(? AS TEXT) IS NULL OR project = ?) AND COALESCE(heartbeat_at, 0) < ? AND NOT ${HAS_LIVE_SHARER} RETURNING id`,
    params: [new Date().toISOString(), project ?? null, project ?? null, before, before],
  };
}

/**
 * Marks failed every owned queued or running crawl (of `project`, or of any) whose heartbeat is older than `before`
 * (ms): its owner stopped answering. Queued crawls nobody has claimed are left to wait, and so are shared crawls
 * another live worker reports on (one of the serving processes takes their lead over: takeOverCrawl). Returns their
 * ids.
 */
export async function failDeadCrawls(sql: Sql, before: number, project?: string): Promise<number[]> {
  const st = failDeadCrawlsStatement(before, project);
  const rows = await sql.all<{ id: number }>(st.sql, st.params);
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/**
 * The project's owned queued or running crawls whose heartbeat is older than the bound and no live worker shares
 * (parameters: the project, the bound, the bound again): what failDeadCrawls fails. A read: no write lock.
 */
const DEAD_CRAWLS = `FROM crawls WHERE ${OWNED} AND project = ? AND COALESCE(heartbeat_at, 0) < ? AND NOT ${HAS_LIVE_SHARER}`;

/** The project's running shared crawls (c, with their frontier f) whose lead has not beaten since the bound (parameters: the project, the bound). */
const LEADERLESS_CRAWLS = `FROM crawls c JOIN frontier_crawls f ON f.crawl_id = c.id
  WHERE c.project = ? AND c.status = 'running' AND COALESCE(c.heartbeat_at, 0) < ? AND f.plan IS NOT NULL`;

/** Which of the sweep's steps have something to do now; see sweepDue. */
export interface SweepDue {
  /** An owned crawl whose owner stopped beating (failDeadCrawls would fail it). */
  dead: boolean;
  /** A running shared crawl without a live lead (leaderlessCrawls). */
  leaderless: boolean;
  /** An ended crawl whose end is not recorded yet (pendingAfterCrawls). */
  pendingAfter: boolean;
}

/**
 * The sweep's three questions about the project's crawls (a dead owner, a shared crawl without a live lead, an ended
 * crawl whose end is not recorded) in one read: the sweep runs every second, mostly to find nothing, and on SQLite
 * each read after a writer's commit reads the changed pages again. The same conditions as failDeadCrawls,
 * leaderlessCrawls and pendingAfterCrawls, which the steps then run.
 */
export async function sweepDue(sql: Sql, project: string, before: number): Promise<SweepDue> {
  const row = await sql.get<{ dead: number | boolean; leaderless: number | boolean; pending: number | boolean }>(
    `SELECT EXISTS (SELECT 1 ${DEAD_CRAWLS}) AS dead, EXISTS (SELECT 1 ${LEADERLESS_CRAWLS}) AS leaderless,
       EXISTS (SELECT 1 ${PENDING_AFTER_CRAWLS}) AS pending`,
    [project, before, before, project, before, project],
  );
  return { dead: Boolean(row?.dead), leaderless: Boolean(row?.leaderless), pendingAfter: Boolean(row?.pending) };
}

/**
 * Running shared crawls of the project whose lead has not beaten since `before`, with their plan: a live process
 * that serves the project may take their lead over (oldest first). A read.
 */
export async function leaderlessCrawls(
  sql: Sql,
  project: string,
  before: number,
): Promise<{ crawlId: number; plan: string }[]> {
  return sql.all(`SELECT c.id AS "crawlId", f.plan ${LEADERLESS_CRAWLS} ORDER BY c.id`, [project, before]);
}

/**
 * Makes `owner` the owner of a running crawl whose owner has not beaten since `before` (its heartbeat now): true for
 * exactly one of the processes that try at once, false when its owner beat meanwhile or another took it.
 */
export async function takeOverCrawl(sql: Sql, id: number, before: number, owner: CrawlOwner = {}): Promise<boolean> {
  const now = owner.now ?? Date.now();
  const r = await sql.run(
    `UPDATE crawls SET owner_pid = ?, owner_instance = ?, heartbeat_at = ? WHERE id = ? AND status = 'running' AND COALESCE(heartbeat_at, 0) < ?`,
    [process.pid, owner.instance ?? INSTANCE_ID, now, id, before],
  );
  return r.changes === 1;
}

/**
 * What the owner of a running crawl must look at: its status (another process may have failed it), stop requests,
 * and whether it is still this process's (another may have taken a shared crawl's lead over).
 */
export async function crawlControl(
  sql: Sql,
  id: number,
): Promise<{ status: CrawlStatus; stopRequested: boolean; ownedHere: boolean } | null> {
  const row = await sql.get<{ status: CrawlStatus; stop_requested: number; owner_instance: string | null }>(
    'SELECT status, stop_requested, owner_instance FROM crawls WHERE id = ?',
    [id],
  );
  return row
    ? { status: row.status, stopRequested: row.stop_requested === 1, ownedHere: row.owner_instance === INSTANCE_ID }
    : null;
}

/** Asks the owner of a queued or running crawl to stop it; false when it is not queued or running. */
export async function requestCrawlStop(sql: Sql, project: string, id: number): Promise<boolean> {
  return (
    (
      await sql.run(
        `UPDATE crawls SET stop_requested = 1 WHERE project = ? AND id = ? AND status IN ('queued','running')`,
        [project, id],
      )
    ).changes > 0
  );
}

export async function setCrawlStatus(sql: Sql, id: number, status: CrawlStatus, error?: string): Promise<void> {
  const ended = crawlEnded(status);
  await sql.run(
    `UPDATE crawls SET status = ?, finished_at = CASE WHEN ? = 1 THEN ? ELSE finished_at END, error = COALESCE(?, error) WHERE id = ?`,
    [status, ended ? 1 : 0, new Date().toISOString(), error ?? null, id],
  );
}

/**
 * The crawl's link report is final (its outcomes and the full crawl's clearing are written); its index may not be.
 * Its problem counts are the report's at this moment, kept with the record.
 */
export async function markReportReady(sql: Sql, id: number, problems: ProblemCounts): Promise<void> {
  await sql.run('UPDATE crawls SET report_ready_at = ?, problems = ? WHERE id = ?', [
    new Date().toISOString(),
    JSON.stringify(problems),
    id,
  ]);
}

/**
 * The end of a crawl this process runs: its final status, and its pages in the search index (both at one time, so
 * the index time is never after the finish). Written only while the crawl is still running and this process's (or
 * `owner`'s): false, nothing written, when another process has ended it or taken it over; the end is that one's.
 */
export async function finishCrawl(
  sql: Sql,
  id: number,
  status: CrawlStatus,
  error?: string,
  owner: CrawlOwner = {},
): Promise<boolean> {
  const now = new Date(owner.now ?? Date.now()).toISOString();
  const r = await sql.run(
    `UPDATE crawls SET status = ?, finished_at = ?, indexed_at = ?, error = COALESCE(?, error)
      WHERE id = ? AND status IN ('queued','running') AND owner_instance = ?`,
    [status, now, now, error ?? null, id, owner.instance ?? INSTANCE_ID],
  );
  return r.changes === 1;
}

/**
 * The owner's heartbeat alone, while its crawl runs: a shared crawl's lead beats with its claims' too, so it is
 * not taken for dead while its pages' writes wait (a database that was down and answers again).
 */
export async function beatCrawl(sql: Sql, id: number, owner: CrawlOwner = {}): Promise<void> {
  await sql.run(`UPDATE crawls SET heartbeat_at = ? WHERE id = ? AND status = 'running' AND owner_instance = ?`, [
    owner.now ?? Date.now(),
    id,
    owner.instance ?? INSTANCE_ID,
  ]);
}

/** The statement of updateCrawlStats (the SQLite writer thread runs it synchronously, with each batch). */
export function crawlStatsStatement(
  id: number,
  stats: CrawlStats,
): { sql: string; params: (string | number | null)[] } {
  return {
    sql: 'UPDATE crawls SET pages = ?, links = ?, errors = ?, not_modified = ?, unchanged = ?, retries = ?, stats = ?, heartbeat_at = ? WHERE id = ?',
    params: [
      stats.pages,
      stats.links,
      stats.errors,
      stats.notModified ?? 0,
      stats.unchanged ?? 0,
      stats.retries ?? 0,
      stats.targets ? JSON.stringify(stats.targets) : null,
      Date.now(),
      id,
    ],
  };
}

/** Live or final stats; written by the owner, so it is also the owner's heartbeat. */
export async function updateCrawlStats(sql: Sql, id: number, stats: CrawlStats): Promise<void> {
  const st = crawlStatsStatement(id, stats);
  await sql.run(st.sql, st.params);
}

export async function getCrawl(sql: Sql, project: string, id: number): Promise<CrawlRecord | null> {
  const row = await sql.get<CrawlRow>('SELECT * FROM crawls WHERE project = ? AND id = ?', [project, id]);
  return row ? toRecord(row) : null;
}

export async function listCrawls(sql: Sql, project: string, limit: number, offset: number): Promise<CrawlRecord[]> {
  return (
    await sql.all<CrawlRow>('SELECT * FROM crawls WHERE project = ? ORDER BY id DESC LIMIT ? OFFSET ?', [
      project,
      limit,
      offset,
    ])
  ).map(toRecord);
}

/** The newest crawl of the project that runs or is about to (queued and claimed by an owner). */
export async function activeCrawl(sql: Sql, project: string): Promise<CrawlRecord | null> {
  const row = await sql.get<CrawlRow>(`SELECT * FROM crawls WHERE project = ? AND ${OWNED} ORDER BY id DESC LIMIT 1`, [
    project,
  ]);
  return row ? toRecord(row) : null;
}

/**
 * Queues a crawl nobody owns yet (a schedule's, live update's): no conflict, ever; a serving process claims it in
 * its turn. Its started_at is set when it is claimed.
 */
export async function enqueueCrawl(
  sql: Sql,
  project: string,
  mode: CrawlMode,
  urls: string[] | undefined,
  trigger: CrawlTrigger,
): Promise<CrawlRecord> {
  const row = await sql.get<CrawlRow>(
    `INSERT INTO crawls (project, mode, status, urls, triggered_by) VALUES (?, ?, 'queued', ?, ?) RETURNING *`,
    [project, mode, urls ? JSON.stringify(urls) : null, trigger],
  );
  return toRecord(row!);
}

/** The newest queued crawl of `trigger` that nobody has claimed nor asked to stop (live update merges into it). */
export async function waitingCrawl(sql: Sql, project: string, trigger: CrawlTrigger): Promise<CrawlRecord | null> {
  const row = await sql.get<CrawlRow>(
    `SELECT * FROM crawls WHERE project = ? AND status = 'queued' AND owner_instance IS NULL AND stop_requested = 0 AND triggered_by = ? ORDER BY id DESC LIMIT 1`,
    [project, trigger],
  );
  return row ? toRecord(row) : null;
}

/** Replaces what an unclaimed queued crawl will crawl; false when it has been claimed or stopped meanwhile. */
export async function setWaitingCrawlRequest(
  sql: Sql,
  id: number,
  mode: CrawlMode,
  urls: string[] | undefined,
): Promise<boolean> {
  return (
    (
      await sql.run(
        `UPDATE crawls SET mode = ?, urls = ? WHERE id = ? AND status = 'queued' AND owner_instance IS NULL`,
        [mode, urls ? JSON.stringify(urls) : null, id],
      )
    ).changes > 0
  );
}

/** Whether the project has any crawl queued (claimed or not) or running: a scheduled run falling now is skipped. */
export async function hasPendingCrawl(sql: Sql, project: string): Promise<boolean> {
  return (
    (await sql.get(`SELECT 1 AS one FROM crawls WHERE project = ? AND status IN ('queued','running') LIMIT 1`, [
      project,
    ])) !== undefined
  );
}

/** Whether a queued crawl waits unclaimed and none of the project runs (a read: no write lock). */
export async function hasClaimableCrawl(sql: Sql, project: string): Promise<boolean> {
  return (
    (await sql.get(
      `SELECT 1 AS one FROM crawls WHERE project = ? AND status = 'queued' AND owner_instance IS NULL LIMIT 1`,
      [project],
    )) !== undefined &&
    (await sql.get(`SELECT 1 AS one FROM crawls WHERE project = ? AND ${OWNED} LIMIT 1`, [project])) === undefined
  );
}

/**
 * Claims the project's oldest unclaimed queued crawl for `owner` (status running, its heartbeat now), unless a
 * crawl of the project runs or is claimed by a live owner. One IMMEDIATE transaction, so of two processes on one
 * database only one gets it (PostgreSQL: the row is locked, and a row another claimer holds is skipped). Null when
 * there is nothing to run, or it is not this one's turn.
 */
export async function claimQueuedCrawl(sql: Sql, project: string, owner: CrawlOwner = {}): Promise<CrawlRecord | null> {
  const now = owner.now ?? Date.now();
  return sql.tx(async (t) => {
    await failDeadCrawls(t, now - (owner.deadAfterMs ?? CRAWL_DEAD_AFTER_MS), project);
    if (await activeCrawl(t, project)) return null;
    // A stop asked for before anyone claimed it: it never runs.
    await t.run(
      `UPDATE crawls SET status = 'stopped', finished_at = ?, error = COALESCE(error, ?) WHERE project = ? AND status = 'queued' AND owner_instance IS NULL AND stop_requested = 1`,
      [new Date(now).toISOString(), 'stopped before it ran: a stop was requested', project],
    );
    const lock = t.dialect === 'pg' ? ' FOR UPDATE SKIP LOCKED' : '';
    const row = await t.get<CrawlRow>(
      `UPDATE crawls SET status = 'running', started_at = ?, owner_pid = ?, owner_instance = ?, heartbeat_at = ?
       WHERE id = (SELECT id FROM crawls WHERE project = ? AND status = 'queued' AND owner_instance IS NULL ORDER BY id LIMIT 1${lock}) RETURNING *`,
      [new Date(now).toISOString(), process.pid, owner.instance ?? INSTANCE_ID, now, project],
    );
    return row ? toRecord(row) : null;
  });
}

/** Stops a queued crawl nobody has claimed: it never runs. False when it is not such a crawl (claimed, running, ended). */
export async function stopWaitingCrawl(sql: Sql, project: string, id: number, why: string): Promise<boolean> {
  return (
    (
      await sql.run(
        `UPDATE crawls SET status = 'stopped', finished_at = ?, error = ? WHERE project = ? AND id = ? AND status = 'queued' AND owner_instance IS NULL`,
        [new Date().toISOString(), why, project, id],
      )
    ).changes > 0
  );
}

/** The last full crawl with status completed (spec: partial/manual/stopped/failed never change it): when it finished, its stats JSON. */
export async function lastFullCrawlRow(
  sql: Sql,
  project: string,
): Promise<{ finished_at: string; stats: string | null } | undefined> {
  return sql.get<{ finished_at: string; stats: string | null }>(
    `SELECT finished_at, stats FROM crawls WHERE project = ? AND mode = 'full' AND status = 'completed' ORDER BY finished_at DESC, id DESC LIMIT 1`,
    [project],
  );
}

/** When the last completed full crawl finished. */
export async function lastFullCrawl(sql: Sql, project: string): Promise<string | null> {
  return (await lastFullCrawlRow(sql, project))?.finished_at ?? null;
}

/** The per-target stats JSON of the project's latest ended crawl (any mode), or null. */
export async function latestEndedCrawlStats(sql: Sql, project: string): Promise<string | null> {
  const row = await sql.get<{ stats: string | null }>(
    `SELECT stats FROM crawls WHERE project = ? AND status IN ('completed','stopped','failed') ORDER BY id DESC LIMIT 1`,
    [project],
  );
  return row?.stats ?? null;
}

/** The id of the project's latest ended crawl, as a string, or null: it changes whenever a crawl ends. */
export async function latestEndedCrawlId(sql: Sql, project: string): Promise<string | null> {
  const row = await sql.get<{ id: number | null }>(
    `SELECT MAX(id) AS id FROM crawls WHERE project = ? AND status IN ('completed','stopped','failed')`,
    [project],
  );
  return row?.id === null || row?.id === undefined ? null : String(row.id);
}
