// Pure decisions of the link report: rows in report order → the REST form, and the walkLinks rule.
import type { TargetConfig } from '../../model/config.js';
import type { ReportRow, TopLinkRow } from '../../store/report-query.js';
import type { LinkReport, ReportPage, ReportSection, ReportStatus, ReportTarget } from '../../model/types.js';
import { REPORT_REASONS } from '../../model/link-reasons.js';
import { problemCounts, type RankTally } from '../../model/counts.js';

export interface ReportInput {
  /** Per rank: distinct problem link URLs and their (page, link) pairs (readProblemTallies). */
  tallies: readonly RankTally[];
  /** The ranks the report keeps (its reasons filter); null for all. */
  ranks: readonly number[] | null;
  /** The problem links on the most pages, counted over all the rows (readTopLinks). */
  topLinks: readonly TopLinkRow[];
  /** Sorted by rank, then page URL, then link URL; at most `limit` of them. */
  rows: ReportRow[];
  targets: ReportTarget[];
  lastFullCrawl: string | null;
}

/**
 * walkLinks of a target: the configured `walk_links` when set. Unset, a target walks links when it does not use
 * sitemaps, or when no sitemap was found — as the last completed full crawl found (`walkedLinks`);
 * before any such crawl no sitemap has been found yet, so true.
 */
export function targetWalksLinks(
  target: Pick<TargetConfig, 'walk_links' | 'use_sitemap'>,
  walkedLinks: boolean | undefined,
): boolean {
  return target.walk_links ?? (!target.use_sitemap || (walkedLinks ?? true));
}

/**
 * A report speaks of the site once a crawl stored a page of one of its targets, or found one unreachable (that is
 * news too); before that it is `not_crawled`, never an empty all-clear.
 */
export function reportStatus(targets: readonly Pick<ReportTarget, 'pages' | 'lastCrawlError'>[]): ReportStatus {
  return targets.some((t) => t.pages === null || t.pages > 0 || t.lastCrawlError !== null) ? 'ready' : 'not_crawled';
}

/**
 * Groups sorted rows by section, then by the page they were found on; `truncated` when counts exceed the rows. A
 * section's `count` is its occurrences, from the same tallies as `counts`: one computation for every number.
 */
export function assembleLinkReport(input: ReportInput): LinkReport {
  const problems = problemCounts(input.tallies, input.ranks);
  const sections = REPORT_REASONS.map(
    (reason): ReportSection => ({ count: problems.reasons[reason].occurrences, pages: [] }),
  );
  let page: ReportPage | null = null;
  let pageRank = -1;
  for (const row of input.rows) {
    const section = sections[row.rank];
    if (!section) throw new Error(`no report section of rank ${row.rank}`);
    if (!page || pageRank !== row.rank || page.url !== row.pageUrl) {
      page = { url: row.pageUrl, links: [] };
      pageRank = row.rank;
      section.pages.push(page);
    }
    const link: ReportPage['links'][number] = {
      url: row.url,
      httpStatus: row.httpStatus,
      message: row.message,
      element: row.element,
      text: row.text,
    };
    if (REPORT_REASONS[row.rank] === 'redirect' && row.redirectsTo !== null) link.redirectsTo = row.redirectsTo;
    if (row.blocked) link.blocked = true;
    if (row.firstSeen !== null) link.firstSeen = row.firstSeen;
    page.links.push(link);
  }
  return {
    status: reportStatus(input.targets),
    counts: { pages: input.targets.reduce((n, t) => n + (t.pages ?? 0), 0), ...problems },
    topLinks: input.topLinks.map((l) => ({
      url: l.url,
      reason: REPORT_REASONS[l.rank]!,
      httpStatus: l.httpStatus,
      pages: l.pages,
    })),
    notFound: sections[0]!,
    forbidden: sections[1]!,
    serverError: sections[2]!,
    redirect: sections[3]!,
    unknown: sections[4]!,
    targets: input.targets,
    truncated: input.rows.length < problems.occurrences,
    lastFullCrawl: input.lastFullCrawl,
  };
}
