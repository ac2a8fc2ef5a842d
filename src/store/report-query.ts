// Store reads of the link report: report_links (kept ready by migration 2 and savePages) joined to the outcomes.
import { lastFullCrawlRow } from './crawls.js';
import type { Statement } from 'better-sqlite3';
import type { Store } from './store.js';
import { REPORT_REASONS } from '../model/link-reasons.js';

/** One (page, problem link) pair, as read from the store. */
export interface ReportRow {
  /** Section index: position of the reason in REPORT_REASONS. */
  rank: number;
  pageUrl: string;
  url: string;
  httpStatus: number;
  message: string;
  redirectsTo: string | null;
}

export interface ReportSnapshot {
  rows: ReportRow[];
  counts: number[];
  lastFullCrawl: string | null;
  /** Per host: whether the last completed full crawl walked links (when it recorded it). */
  walkedLinks: Map<string, boolean>;
}

export interface ReportRead {
  project: string;
  /** Only pages of this host; null for every page in the store. */
  host: string | null;
  limit: number;
  /** Only rows of these section ranks; null for every section. */
  ranks: readonly number[] | null;
}

const ROW_COLUMNS = 'r.rank, r.page_url, r.url, o.http_status, o.message, o.redirects_to';
/** The reasons filter: a JSON array of ranks, or null for all. */
const RANKS = '(@ranks IS NULL OR r.rank IN (SELECT value FROM json_each(@ranks)))';
type RawRow = [number, string, string, number, string, string | null];

interface Statements {
  rowsAll: Statement;
  rowsOfHost: Statement;
  countsAll: Statement;
  countsOfHost: Statement;
}

const prepared = new WeakMap<Store, Statements>();

function statements(store: Store): Statements {
  let s = prepared.get(store);
  if (!s) {
    const db = store.db;
    s = {
      // Raw rows (arrays): building a JS object per row in the driver costs more than the query itself.
      rowsAll: db.prepare(`SELECT ${ROW_COLUMNS} FROM report_links r INDEXED BY report_links_order JOIN link_outcomes o ON o.url = r.url WHERE ${RANKS} ORDER BY r.rank, r.page_url, r.url LIMIT @limit`).raw(true),
      rowsOfHost: db
        .prepare(
        `SELECT ${ROW_COLUMNS} FROM report_links r INDEXED BY report_links_host JOIN link_outcomes o ON o.url = r.url WHERE r.host = @host AND ${RANKS} ORDER BY r.rank, r.page_url, r.url LIMIT @limit`,
        )
        .raw(true),
      countsAll: db.prepare('SELECT rank, SUM(n) AS n FROM report_counts GROUP BY rank'),
      countsOfHost: db.prepare('SELECT rank, n FROM report_counts WHERE host = ?'),
    };
    prepared.set(store, s);
  }
  return s;
}

/** Everything the report needs, read in one transaction so rows, counts and dates come from one snapshot. */
export function readReportSnapshot(store: Store, read: ReportRead): ReportSnapshot {
  const s = statements(store);
  const rowsStmt = read.host === null ? s.rowsAll : s.rowsOfHost;
  const countsStmt = read.host === null ? s.countsAll : s.countsOfHost;
  const hostArgs = read.host === null ? [] : [read.host];
  return store.db
    .transaction((): ReportSnapshot => {
      const ranks = read.ranks === null ? null : JSON.stringify(read.ranks);
      const rowArgs = read.host === null ? { limit: read.limit, ranks } : { host: read.host, limit: read.limit, ranks };
      const rows = (rowsStmt.all(rowArgs) as RawRow[]).map(
        ([rank, pageUrl, url, httpStatus, message, redirectsTo]): ReportRow => ({ rank, pageUrl, url, httpStatus, message, redirectsTo }),
      );
      const counts = REPORT_REASONS.map(() => 0);
      for (const c of countsStmt.all(...hostArgs) as { rank: number; n: number }[]) if (read.ranks === null || read.ranks.includes(c.rank)) counts[c.rank] = c.n;
      const lastFull = lastFullCrawlRow(store, read.project);
      return { rows, counts, lastFullCrawl: lastFull?.finished_at ?? null, walkedLinks: walkedLinks(lastFull?.stats ?? null) };
    })
    .deferred();
}

function walkedLinks(stats: string | null): Map<string, boolean> {
  const out = new Map<string, boolean>();
  if (!stats) return out;
  try {
    for (const [host, t] of Object.entries(JSON.parse(stats) as Record<string, { walkLinks?: unknown }>)) {
      if (typeof t?.walkLinks === 'boolean') out.set(host, t.walkLinks);
    }
  } catch {
    // A record without readable stats says nothing about link walking.
  }
  return out;
}
