// Store reads of the link report: report_links (kept ready by migration 2 and savePages) joined to the outcomes.
import { lastFullCrawlRow, latestEndedCrawlStats } from './crawls.js';
import { inList, inParams, type Sql, type SqlValue } from './sql.js';
import { REPORT_REASONS } from '../model/link-reasons.js';
import type { RankTally } from '../model/counts.js';

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
  /** Per host: the pages stored now (hosts with none are absent). */
  pages: Map<string, number>;
  /** Per rank: distinct problem link URLs and their (page, link) pairs, as `counts` filters them (since). */
  tallies: RankTally[];
  /** The problem links carried by the most pages, whatever the limit (at most TOP_LINKS of them). */
  topLinks: TopLinkRow[];
}

/** A problem link and the number of pages carrying it, counted over all the report's rows. */
export interface TopLinkRow {
  url: string;
  rank: number;
  httpStatus: number;
  pages: number;
}

/** Problem links a report names with their full page counts: the worst first. */
export const TOP_LINKS = 100;

export interface ReportRead {
  project: string;
  /** Only pages of these hosts (canonical host[:port]): the configured targets, or the one asked for. */
  hosts: readonly string[];
  limit: number;
  /** Only rows of these section ranks; null for every section. */
  ranks: readonly number[] | null;
  /** Only problems first seen after this time (ISO 8601 as toISOString writes it), and those not recorded yet; null for all. */
  since: string | null;
  /** Only rows after this one in report order (the last row of the previous page); null from the start. */
  after?: { rank: number; pageUrl: string; url: string } | null;
}

// element and text are in the order indexes (migration 6): the rows are read from the index alone.
const ROW_COLUMNS =
  'r.rank, r.page_url, r.url, o.http_status, o.message, o.redirects_to, r.element, r.text, o.blocked, h.first_seen';
interface RawRow {
  rank: number;
  page_url: string;
  url: string;
  http_status: number;
  message: string;
  redirects_to: string | null;
  element: string;
  text: string;
  blocked: number;
  first_seen: string | null;
}
/** The open history episode of each row (migration 8): when it was first seen. */
const HISTORY = `JOIN report_reasons rr ON rr.rank = r.rank
  LEFT JOIN problem_history h ON h.project = @project AND h.page_url = r.page_url AND h.url = r.url AND h.reason = rr.reason AND h.fixed_crawl IS NULL`;

/**
 * The statements of one read: hosts and ranks are bound as lists (`IN (@h0, …)`), and a filter that is off is left
 * out rather than bound as null. SQLite is told which index walks the rows in report order (its planner may
 * otherwise sort); PostgreSQL plans it itself.
 */
function reportSql(dialect: Sql['dialect'], read: ReportRead): { rows: string; counts: string } {
  const one = read.hosts.length === 1;
  const hosts = one ? 'r.host = @h0' : `r.host IN (${inList('h', read.hosts.length)})`;
  const ranks =
    read.ranks === null ? '' : ` AND r.rank IN (${read.ranks.length ? inList('k', read.ranks.length) : 'NULL'})`;
  // A problem not recorded yet (its crawl has not ended) is newer than any time given.
  const since = read.since === null ? '' : ' AND (h.first_seen IS NULL OR h.first_seen > @since)';
  const indexed = dialect === 'sqlite' ? ` INDEXED BY ${one ? 'report_links_host' : 'report_links_order'}` : '';
  // A row value compared in report order: the next page starts right after the last row of the previous one.
  const after = read.after ? ' AND (r.rank, r.page_url, r.url) > (@afterRank, @afterPage, @afterUrl)' : '';
  return {
    // Pages of hosts no longer configured stay in the store but out of every answer.
    rows: `SELECT ${ROW_COLUMNS} FROM report_links r${indexed} JOIN link_outcomes o ON o.url = r.url ${HISTORY} WHERE ${hosts}${ranks}${since}${after} ORDER BY r.rank, r.page_url, r.url LIMIT @limit`,
    // With since, the kept counts do not apply: the matching rows are counted.
    counts:
      read.since === null
        ? `SELECT rank, SUM(n) AS n FROM report_counts WHERE host IN (${inList('h', read.hosts.length)}) GROUP BY rank`
        : `SELECT r.rank AS rank, COUNT(*) AS n FROM report_links r ${HISTORY} WHERE r.host IN (${inList('h', read.hosts.length)})${since} GROUP BY r.rank`,
  };
}

/** Everything the report needs, read on one snapshot so rows, counts and dates agree. */
export async function readReportSnapshot(sql: Sql, read: ReportRead): Promise<ReportSnapshot> {
  const counts = REPORT_REASONS.map(() => 0);
  if (!read.hosts.length) {
    const [lastFull, latest] = await sql.snapshot(
      async (t) => [await lastFullCrawlRow(t, read.project), await latestEndedCrawlStats(t, read.project)] as const,
    );
    return {
      rows: [],
      counts,
      lastFullCrawl: lastFull?.finished_at ?? null,
      walkedLinks: walkedLinks(lastFull?.stats ?? null),
      unreachable: unreachableHosts(latest),
      pages: new Map(),
      tallies: [],
      topLinks: [],
    };
  }
  const q = reportSql(sql.dialect, read);
  const hosts = inParams('h', read.hosts);
  const ranks: Record<string, SqlValue> = read.ranks === null ? {} : inParams('k', read.ranks);
  const since: Record<string, SqlValue> = read.since === null ? {} : { since: read.since };
  return sql.snapshot(async (t): Promise<ReportSnapshot> => {
    const after: Record<string, SqlValue> = read.after
      ? { afterRank: read.after.rank, afterPage: read.after.pageUrl, afterUrl: read.after.url }
      : {};
    const raw = await t.all<RawRow>(q.rows, {
      ...hosts,
      ...ranks,
      ...since,
      ...after,
      project: read.project,
      limit: read.limit,
    });
    const rows = raw.map(
      (r): ReportRow => ({
        rank: r.rank,
        pageUrl: r.page_url,
        url: r.url,
        httpStatus: r.http_status,
        message: r.message,
        redirectsTo: r.redirects_to,
        element: r.element,
        text: r.text,
        blocked: r.blocked === 1,
        firstSeen: r.first_seen,
      }),
    );
    const counted = await t.all<{ rank: number; n: number }>(
      q.counts,
      read.since === null ? hosts : { ...hosts, ...since, project: read.project },
    );
    for (const c of counted) if (read.ranks === null || read.ranks.includes(c.rank)) counts[c.rank] = Number(c.n);
    const lastFull = await lastFullCrawlRow(t, read.project);
    const latest = await latestEndedCrawlStats(t, read.project);
    return {
      rows,
      counts,
      lastFullCrawl: lastFull?.finished_at ?? null,
      walkedLinks: walkedLinks(lastFull?.stats ?? null),
      unreachable: unreachableHosts(latest),
      pages: await storedPages(t, read.hosts),
      tallies: await readProblemTallies(t, read),
      topLinks: await readTopLinks(t, read),
    };
  });
}

/** The problem links on the most pages (then report order, then URL), counted over every row the read selects. */
async function readTopLinks(sql: Sql, read: ReportRead): Promise<TopLinkRow[]> {
  const since = read.since === null ? '' : ' AND (h.first_seen IS NULL OR h.first_seen > @since)';
  const history = read.since === null ? '' : ` ${HISTORY}`;
  const ranks =
    read.ranks === null ? '' : ` AND r.rank IN (${read.ranks.length ? inList('k', read.ranks.length) : 'NULL'})`;
  const rows = await sql.all<{ url: string; rank: number; http_status: number; pages: number }>(
    `SELECT r.url AS url, r.rank AS rank, MAX(o.http_status) AS http_status, COUNT(*) AS pages
      FROM report_links r JOIN link_outcomes o ON o.url = r.url${history}
      WHERE r.host IN (${inList('h', read.hosts.length)})${ranks}${since}
      GROUP BY r.url, r.rank ORDER BY COUNT(*) DESC, r.rank, r.url LIMIT ${TOP_LINKS}`,
    {
      ...inParams('h', read.hosts),
      ...(read.ranks === null ? {} : inParams('k', read.ranks)),
      ...(read.since === null ? {} : { since: read.since, project: read.project }),
    },
  );
  return rows.map((r) => ({
    url: r.url,
    rank: Number(r.rank),
    httpStatus: Number(r.http_status),
    pages: Number(r.pages),
  }));
}

/**
 * Per rank: the distinct problem link URLs of the hosts' pages and the (page, link) pairs they make — the one count
 * of problems, read for the report and for a crawl's record alike. With `since`, only problems first seen after it.
 */
export async function readProblemTallies(
  sql: Sql,
  read: Pick<ReportRead, 'project' | 'hosts' | 'since'>,
): Promise<RankTally[]> {
  if (!read.hosts.length) return [];
  const since = read.since === null ? '' : ' AND (h.first_seen IS NULL OR h.first_seen > @since)';
  const history = read.since === null ? '' : ` ${HISTORY}`;
  const rows = await sql.all<{ rank: number; links: number; pairs: number }>(
    `SELECT r.rank AS rank, COUNT(DISTINCT r.url) AS links, COUNT(*) AS pairs FROM report_links r${history}
      WHERE r.host IN (${inList('h', read.hosts.length)})${since} GROUP BY r.rank`,
    {
      ...inParams('h', read.hosts),
      ...(read.since === null ? {} : { since: read.since, project: read.project }),
    },
  );
  return rows.map((r) => ({ rank: Number(r.rank), problemLinks: Number(r.links), occurrences: Number(r.pairs) }));
}

/** Pages stored per host (the pages_host index answers it). */
async function storedPages(sql: Sql, hosts: readonly string[]): Promise<Map<string, number>> {
  const rows = await sql.all<{ host: string; n: number }>(
    `SELECT host, COUNT(*) AS n FROM pages WHERE host IN (${inList('h', hosts.length)}) GROUP BY host`,
    inParams('h', hosts),
  );
  return new Map(rows.map((r) => [r.host, Number(r.n)]));
}

function unreachableHosts(stats: string | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!stats) return out;
  try {
    for (const [host, t] of Object.entries(
      JSON.parse(stats) as Record<string, { unreachable?: unknown; error?: unknown }>,
    )) {
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
