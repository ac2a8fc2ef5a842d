// The reads behind the operator's gauges (svc serve's /metrics): small counts of one project's database taken when
// Prometheus scrapes, written once for both dialects. On PostgreSQL every instance sharing the database reads the
// same numbers.
import { REPORT_REASONS } from '../model/link-reasons.js';
import type { Sql } from './sql.js';

/** Crawls of the project waiting in the queue. */
export async function queuedCrawlCount(sql: Sql, project: string): Promise<number> {
  const row = await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM crawls WHERE project = ? AND status = 'queued'`, [
    project,
  ]);
  return Number(row?.n ?? 0);
}

/** Webhook deliveries of the project not yet delivered or given up on (waiting or being sent). */
export async function webhookOutboxDepth(sql: Sql, project: string): Promise<number> {
  const row = await sql.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM webhook_deliveries WHERE project = ? AND status IN ('pending', 'sending')`,
    [project],
  );
  return Number(row?.n ?? 0);
}

/** Pages stored (and searchable) in the project's database. */
export async function storedPageCount(sql: Sql): Promise<number> {
  const row = await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM pages');
  return Number(row?.n ?? 0);
}

/** Pages stored and in search now: indexed, and not hidden from search (pageIndexState's inSearch). */
export async function inSearchPageCount(sql: Sql): Promise<number> {
  const row = await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM pages WHERE indexed = 1 AND show_in_search = 1');
  return Number(row?.n ?? 0);
}

/**
 * PostgreSQL: the bytes of every table of the project's schema, with its indexes and TOAST —
 * the project's share of a database that may hold several projects and other data.
 */
export async function schemaBytes(sql: Sql, schema: string): Promise<number> {
  const row = await sql.get<{ n: string | number | null }>(
    `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c
     JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = ? AND c.relkind IN ('r', 'm')`,
    [schema],
  );
  return Number(row?.n ?? 0);
}

/** The link report's rows per host and reason: the problem links each target has now. */
export async function problemLinkCounts(sql: Sql): Promise<{ host: string; reason: string; count: number }[]> {
  const rows = await sql.all<{ host: string; rank: number; n: number }>(
    'SELECT host, rank, COUNT(*) AS n FROM report_links GROUP BY host, rank',
  );
  return rows.map((r) => ({ host: r.host, reason: REPORT_REASONS[Number(r.rank)] ?? 'unknown', count: Number(r.n) }));
}
