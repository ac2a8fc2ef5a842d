// The link report (REST form), built from the store only: reading it never sends a request to the crawled site.
import type { TargetConfig } from '../../model/config.js';
import { BackendError } from '../../model/errors.js';
import type { Sql } from '../../store/sql.js';
import type { LinkReport, LinkReportQuery } from '../../model/types.js';
import { assembleLinkReport, targetWalksLinks } from './assemble.js';
import { readReportSnapshot } from '../../store/report-query.js';
import { canonicalTargetHost, canonicalTargetHosts, findTarget } from '../../model/site-urls.js';
import { REPORT_LIMIT } from '../../model/limits.js';
import { REPORT_REASONS } from '../../model/link-reasons.js';
import { normalizeSince, SINCE_RULE } from '../../model/history.js';

/**
 * Sections in the order notFound, forbidden, serverError, redirect, unknown; within a section pages by URL, and
 * within a page links by URL (binary order). `limit` caps the links returned across all sections in that order.
 * With `reasons`, the other sections are empty (count 0). With `since`, only problems first seen after it (or found
 * by a crawl that has not ended yet) are listed, and each section's count is the number of those.
 */
export async function buildLinkReport(
  sql: Sql,
  project: string,
  targets: TargetConfig[],
  query: LinkReportQuery,
): Promise<LinkReport> {
  const limit = query.limit ?? REPORT_LIMIT.default;
  if (!Number.isInteger(limit) || limit < REPORT_LIMIT.min || limit > REPORT_LIMIT.max) {
    throw new BackendError(
      'invalid_input',
      `limit: must be an integer from ${REPORT_LIMIT.min} to ${REPORT_LIMIT.max}`,
    );
  }
  const since = query.since === undefined ? null : normalizeSince(query.since);
  if (query.since !== undefined && since === null) throw new BackendError('invalid_input', `since: ${SINCE_RULE}`);
  const unknown = query.reasons?.find((r) => !REPORT_REASONS.includes(r));
  if (unknown !== undefined)
    throw new BackendError('invalid_input', `reasons: "${unknown}" is not one of ${REPORT_REASONS.join(', ')}`);
  // Pages are stored under the target's canonical host (default port dropped, IDN as punycode), as the crawler writes it.
  const canonical = (t: TargetConfig) => canonicalTargetHost(t.host, t.scheme);
  let shown = targets;
  if (query.target !== undefined) {
    const match = findTarget(query.target, targets);
    if (!match) {
      const known = targets.map((t) => t.host).join(', ') || 'none';
      throw new BackendError(
        'invalid_input',
        `target: "${query.target}" is not a configured target host (configured: ${known})`,
      );
    }
    shown = [match];
  }
  const ranks = query.reasons?.length ? query.reasons.map((r) => REPORT_REASONS.indexOf(r)) : null;
  const hosts = canonicalTargetHosts(shown);
  const key = reportCursorKey(project, hosts, ranks, since);
  const after = query.cursor === undefined ? null : decodeReportCursor(query.cursor, key);
  // Only configured targets: pages of a host crawled under an older config stay out of the answer. One row more
  // than asked tells whether another page follows.
  const snap = await readReportSnapshot(sql, { project, hosts, limit: limit + 1, ranks, since, after });
  const more = snap.rows.length > limit;
  const rows = more ? snap.rows.slice(0, limit) : snap.rows;
  const last = rows[rows.length - 1];
  const report = assembleLinkReport({
    tallies: snap.tallies,
    topLinks: snap.topLinks,
    ranks,
    rows,
    lastFullCrawl: snap.lastFullCrawl,
    targets: shown.map((t) => ({
      host: t.host,
      linkTracking: t.track_links,
      walkLinks: targetWalksLinks(t, snap.walkedLinks.get(canonical(t))),
      lastCrawlError: snap.unreachable.get(canonical(t)) ?? null,
      pages: snap.pages.get(canonical(t)) ?? 0,
    })),
  });
  return {
    ...report,
    truncated: more,
    next_cursor: more && last ? encodeReportCursor(key, last) : null,
  };
}

/** What a cursor is good for: the project, hosts, reasons and since of the report it came from. */
function reportCursorKey(
  project: string,
  hosts: readonly string[],
  ranks: readonly number[] | null,
  since: string | null,
): string {
  return JSON.stringify([project, hosts, ranks, since]);
}

function encodeReportCursor(key: string, row: { rank: number; pageUrl: string; url: string }): string {
  return Buffer.from(JSON.stringify({ k: key, r: row.rank, p: row.pageUrl, u: row.url })).toString('base64url');
}

function decodeReportCursor(raw: string, key: string): { rank: number; pageUrl: string; url: string } {
  const bad = (why: string) =>
    new BackendError(
      'invalid_input',
      `cursor: ${why}; give the next_cursor of the previous answer with the same target, reasons and since, or no cursor to start again`,
    );
  let c: { k?: unknown; r?: unknown; p?: unknown; u?: unknown };
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as typeof c;
  } catch {
    throw bad('is not a cursor svc gave');
  }
  if (typeof c?.k !== 'string' || typeof c.r !== 'number' || typeof c.p !== 'string' || typeof c.u !== 'string')
    throw bad('is not a cursor svc gave');
  if (c.k !== key) throw bad('belongs to another report (another target, reasons, since or project)');
  return { rank: c.r, pageUrl: c.p, url: c.u };
}
