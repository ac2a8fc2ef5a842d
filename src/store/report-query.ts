// Store reads of the link report: report_links (kept ready by migration 2 and savePages) joined to the outcomes.
import { lastFullCrawlRow, latestEndedCrawlStats } from './crawls.js';
import type { Statement } from 'better-sqlite3';
import type { Store } from './store.js';
import { REPORT_REASONS } from '../model/link-reasons.js';

/** A problem link where a page has it: what the report and the problem history both keep of it. */
export interface ProblemLinkRow {
  pageUrl: string;
  url: string;
  httpStatus: number;
  message: string;
  redirectsTo: string | null;
  element: string;
  text: string;
  blocked: boolean;
}

/** One (page, problem link) pair, as read from the store. */
export interface ReportRow extends ProblemLinkRow {
  /** Section index: position of the reason in REPORT_REASONS. */
  rank: number;
  /** When the crawl that first found this problem ended; null while the crawl that found it has not ended. */
  firstSeen: string | null;
}

export interface ReportSnapshot {
  rows: ReportRow[];
  counts: number[];
  lastFullCrawl: string | null;
  /** Per host: whether the last completed full crawl walked links (when it recorded it). */
  walkedLinks: Map<string, boolean>;
  /** Per host: why the latest ended crawl could not reach it. */
  unreachable: Map<string, string>;
}

export interface ReportRead {
  project: string;
  /** Only pages of these hosts (canonical host[:port]): the configured targets, or the one asked for. */
  hosts: readonly string[];
  limit: number;
  /** Only rows of these section ranks; null for every section. */
  ranks: readonly number[] | null;
  /** Only problems first seen after this time (ISO 8601 as toISOString writes it), and those not recorded yet; null for all. */
  since: string | null;
}

// element and text are in the order indexes (migration 6): the rows are read from the index alone.
const ROW_COLUMNS = 'r.rank, r.page_url, r.url, o.http_status, o.message, o.redirects_to, r.element, r.text, o.blocked, h.first_seen';
type RawRow = [number, string, string, number, string, string | null, string, string, number, string | null];
/** The reasons filter: a JSON array of ranks, or null for all. */
const RANKS = '(@ranks IS NULL OR r.rank IN (SELECT value FROM json_each(@ranks)))';
/** The open history episode of each row (migration 8): when it was first seen. */
const HISTORY = `JOIN report_reasons rr ON rr.rank = r.rank
  LEFT JOIN problem_history h ON h.project = @project AND h.page_url = r.page_url AND h.url = r.url AND h.reason = rr.reason AND h.fixed_crawl IS NULL`;
/** The since filter: a problem not recorded yet (its crawl has not ended) is newer than any time given. */
const SINCE = '(@since IS NULL OR h.first_seen IS NULL OR h.first_seen > @since)';

interface Statements {
  rowsOfHosts: Statement;
  rowsOfHost: Statement;
  counts: Statement;
  countsSince: Statement;
}

const prepared = new WeakMap<Store, Statements>();

function statements(store: Store): Statements {
  let s = prepared.get(store);
  if (!s) {
    const db = store.db;
    s = {
      // Raw rows (arrays): building a JS object per row in the driver costs more than the query itself.
      // Pages of hosts no longer configured stay in the store but out of every answer.
      rowsOfHosts: db
        .prepare(
          `SELECT ${ROW_COLUMNS} FROM report_links r INDEXED BY report_links_order JOIN link_outcomes o ON o.url = r.url ${HISTORY} WHERE r.host IN (SELECT value FROM json_each(@host)) AND ${RANKS} AND ${SINCE} ORDER BY r.rank, r.page_url, r.url LIMIT @limit`,
        )
        .raw(true),
      rowsOfHost: db
        .prepare(
        `SELECT ${ROW_COLUMNS} FROM report_links r INDEXED BY report_links_host JOIN link_outcomes o ON o.url = r.url ${HISTORY} WHERE r.host = @host AND ${RANKS} AND ${SINCE} ORDER BY r.rank, r.page_url, r.url LIMIT @limit`,
        )
        .raw(true),
      counts: db.prepare('SELECT rank, SUM(n) AS n FROM report_counts WHERE host IN (SELECT value FROM json_each(?)) GROUP BY rank'),
      // With since, the kept counts do not apply: the matching rows are counted.
      countsSince: db.prepare(
        `SELECT r.rank AS rank, COUNT(*) AS n FROM report_links r ${HISTORY} WHERE r.host IN (SELECT value FROM json_each(@host)) AND ${SINCE} GROUP BY r.rank`,
      ),
    };
    prepared.set(store, s);
  }
  return s;
}

/** Everything the report needs, read in one transaction so rows, counts and dates come from one snapshot. */
export function readReportSnapshot(store: Store, read: ReportRead): ReportSnapshot {
  const s = statements(store);
  const one = read.hosts.length === 1;
  const rowsStmt = one ? s.rowsOfHost : s.rowsOfHosts;
  const hostArg = one ? read.hosts[0] : JSON.stringify(read.hosts);
  return store.db
    .transaction((): ReportSnapshot => {
      const args = { host: hostArg, limit: read.limit, ranks: read.ranks === null ? null : JSON.stringify(read.ranks), project: read.project, since: read.since };
      const rows = (rowsStmt.all(args) as RawRow[]).map(
        ([rank, pageUrl, url, httpStatus, message, redirectsTo, element, text, blocked, firstSeen]): ReportRow => ({
          rank, pageUrl, url, httpStatus, message, redirectsTo, element, text, blocked: blocked === 1, firstSeen,
        }),
      );
      const counts = REPORT_REASONS.map(() => 0);
      const counted =
        read.since === null
          ? s.counts.all(JSON.stringify(read.hosts))
          : s.countsSince.all({ host: JSON.stringify(read.hosts), project: read.project, since: read.since });
      for (const c of counted as { rank: number; n: number }[]) if (read.ranks === null || read.ranks.includes(c.rank)) counts[c.rank] = c.n;
      const lastFull = lastFullCrawlRow(store, read.project);
      const latest = latestEndedCrawlStats(store, read.project);
      return { rows, counts, lastFullCrawl: lastFull?.finished_at ?? null, walkedLinks: walkedLinks(lastFull?.stats ?? null), unreachable: unreachableHosts(latest) };
    })
    .deferred();
}

function unreachableHosts(stats: string | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!stats) return out;
  try {
    for (const [host, t] of Object.entries(JSON.parse(stats) as Record<string, { unreachable?: unknown; error?: unknown }>)) {
      if (t?.unreachable === true) out.set(host, typeof t.error === 'string' ? t.error : 'unreachable');
    }
  } catch {
    // unreadable stats say nothing
  }
  return out;
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
