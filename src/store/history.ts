// Problem history (migration 8): when each (page, link, reason) problem was first found and when it went away.
// Written when a crawl's end is recorded; read by the report (first_seen, since) and by a crawl's changes.
import type { Sql } from './sql.js';
import type { ProblemLinkRow } from './report-query.js';
import { inList, inParams } from './sql.js';

/** One episode of a problem, as stored: open while fixedCrawl is null. */
export interface ProblemEpisode extends ProblemLinkRow {
  reason: string;
  host: string;
  firstCrawl: number;
  firstSeen: string;
  fixedCrawl: number | null;
  fixedAt: string | null;
}

interface EpisodeRow {
  page_url: string;
  url: string;
  reason: string;
  host: string;
  http_status: number;
  message: string;
  redirects_to: string | null;
  element: string;
  text: string;
  blocked: number;
  first_crawl: number;
  first_seen: string;
  fixed_crawl: number | null;
  fixed_at: string | null;
}

const ENDED = `('completed','stopped','failed')`;

/** The project's ended crawls whose end is not recorded yet (one parameter: the project). */
export const PENDING_AFTER_CRAWLS = `FROM crawls WHERE project = ? AND history_done = 0 AND status IN ${ENDED}`;

/**
 * The crawl `id` of `project` when it has ended and its end is not recorded yet (then the caller records it in the
 * same transaction); null otherwise. Call inside a transaction.
 */
export async function pendingAfterCrawl(
  sql: Sql,
  project: string,
  id: number,
): Promise<{ id: number; finishedAt: string } | null> {
  const row = await sql.get<{ id: number; finished_at: string | null }>(
    `SELECT id, COALESCE(finished_at, started_at) AS finished_at FROM crawls WHERE project = ? AND id = ? AND history_done = 0 AND status IN ${ENDED}`,
    [project, id],
  );
  return row ? { id: row.id, finishedAt: row.finished_at ?? new Date().toISOString() } : null;
}

/** Ended crawls of the project whose end is not recorded yet, oldest first. */
export async function pendingAfterCrawls(sql: Sql, project: string): Promise<number[]> {
  return (await sql.all<{ id: number }>(`SELECT id ${PENDING_AFTER_CRAWLS} ORDER BY id`, [project])).map((r) => r.id);
}

/**
 * Records the end of crawl `crawlId` in the history, from what the report holds now: episodes whose problem is no
 * longer in it are closed (fixed by this crawl), problems without an open episode open one (first seen at
 * `finishedAt`), and the crawl is marked recorded. Call inside the transaction that ends the crawl.
 */
export async function recordProblemHistory(
  sql: Sql,
  project: string,
  crawlId: number,
  finishedAt: string,
): Promise<{ opened: number; closed: number }> {
  const closed = (
    await sql.run(
      `UPDATE problem_history SET fixed_crawl = @crawl, fixed_at = @at
       WHERE project = @project AND fixed_crawl IS NULL AND NOT EXISTS (
         SELECT 1 FROM report_links r JOIN report_reasons rr ON rr.rank = r.rank
         WHERE rr.reason = problem_history.reason AND r.page_url = problem_history.page_url AND r.url = problem_history.url)`,
      { crawl: crawlId, at: finishedAt, project },
    )
  ).changes;
  // Parameters in a SELECT list are cast: PostgreSQL does not infer their type from the INSERT's columns.
  const opened = (
    await sql.run(
      `INSERT INTO problem_history (project, page_url, url, reason, host, http_status, message, redirects_to, element, text, blocked, first_crawl, first_seen)
       SELECT CAST(@project AS TEXT), r.page_url, r.url, rr.reason, r.host, o.http_status, o.message, o.redirects_to, r.element, r.text, o.blocked,
              CAST(@crawl AS INTEGER), CAST(@at AS TEXT)
       FROM report_links r JOIN report_reasons rr ON rr.rank = r.rank JOIN link_outcomes o ON o.url = r.url
       WHERE NOT EXISTS (SELECT 1 FROM problem_history h WHERE h.project = @project AND h.page_url = r.page_url AND h.url = r.url AND h.reason = rr.reason AND h.fixed_crawl IS NULL)`,
      { crawl: crawlId, at: finishedAt, project },
    )
  ).changes;
  await sql.run('UPDATE crawls SET history_done = 1 WHERE id = ?', [crawlId]);
  return { opened, closed };
}

/**
 * Episodes of pages of `hosts` that were open at some point between the ends of crawl `sinceCrawl` (0: before any)
 * and crawl `atCrawl`: enough to tell what was there at either end.
 */
export async function episodesAround(
  sql: Sql,
  project: string,
  hosts: readonly string[],
  atCrawl: number,
  sinceCrawl: number,
): Promise<ProblemEpisode[]> {
  if (!hosts.length) return [];
  const rows = await sql.all<EpisodeRow>(
    `SELECT page_url, url, reason, host, http_status, message, redirects_to, element, text, blocked, first_crawl, first_seen, fixed_crawl, fixed_at
       FROM problem_history
       WHERE project = @project AND first_crawl <= @at AND (fixed_crawl IS NULL OR fixed_crawl > @since)
         AND host IN (${inList('h', hosts.length)})`,
    { project, at: atCrawl, since: Math.min(sinceCrawl, atCrawl), ...inParams('h', hosts) },
  );
  return rows.map((r) => ({
    pageUrl: r.page_url,
    url: r.url,
    reason: r.reason,
    host: r.host,
    httpStatus: r.http_status,
    message: r.message,
    redirectsTo: r.redirects_to,
    element: r.element,
    text: r.text,
    blocked: r.blocked === 1,
    firstCrawl: r.first_crawl,
    firstSeen: r.first_seen,
    fixedCrawl: r.fixed_crawl,
    fixedAt: r.fixed_at,
  }));
}

/** The completed full crawl of the project that ended last before crawl `id` (by id: one crawl runs at a time). */
export async function previousCompletedFullCrawl(
  sql: Sql,
  project: string,
  id: number,
): Promise<{ id: number; finishedAt: string } | null> {
  const row = await sql.get<{ id: number; finished_at: string }>(
    `SELECT id, finished_at FROM crawls WHERE project = ? AND mode = 'full' AND status = 'completed' AND id < ? AND finished_at IS NOT NULL ORDER BY id DESC LIMIT 1`,
    [project, id],
  );
  return row ? { id: row.id, finishedAt: row.finished_at } : null;
}

/** Forgets problems fixed before `before` (ISO 8601): their crawls' changes are too old to be asked for. */
export async function pruneProblemHistory(sql: Sql, project: string, before: string): Promise<number> {
  return (
    await sql.run('DELETE FROM problem_history WHERE project = ? AND fixed_crawl IS NOT NULL AND fixed_at < ?', [
      project,
      before,
    ])
  ).changes;
}
