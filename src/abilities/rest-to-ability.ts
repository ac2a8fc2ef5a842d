// Pure mappings from the backend's REST forms (camelCase) to the abilities' forms (snake_case).
import {
  crawlEnded,
  type CrawlRecord,
  type DeletePagesResult,
  type LinkReport,
  type PageIndexState,
  type PageMeta,
  type ReportSection,
} from '../model/types.js';
import type { z } from 'zod';
import { TOP_LINKS_MAX, type AbilityLinkReportSchema, type CrawlRecordSchema, type PageMetaSchema } from './schemas.js';
import { SECTION_KEYS, REPORT_REASONS } from '../model/link-reasons.js';

export type AbilityLinkReport = z.output<typeof AbilityLinkReportSchema>;
export type AbilityCrawlRecord = z.output<typeof CrawlRecordSchema>;

/** Each reason with its section of the REST report, in report order. */
const SECTIONS = REPORT_REASONS.map((reason, i) => [reason, SECTION_KEYS[i]!] as const);

/** The report grouped by reason and page → one flat entry per problem link, in reason order, then page order. */
export function toAbilityLinkReport(report: LinkReport): AbilityLinkReport {
  const summary = { not_found: 0, forbidden: 0, server_error: 0, redirect: 0, unknown: 0 };
  const links: AbilityLinkReport['links'] = [];
  for (const [reason, key] of SECTIONS) {
    const section: ReportSection = report[key];
    summary[reason] = section.count;
    for (const page of section.pages) {
      for (const l of page.links) {
        links.push({
          page: page.url,
          link: l.url,
          http_status: l.httpStatus,
          reason,
          message: l.message,
          redirects_to: reason === 'redirect' ? (l.redirectsTo ?? null) : null,
          element: l.element,
          text: l.text,
          blocked: l.blocked === true,
          first_seen: l.firstSeen ?? null,
        });
      }
    }
  }
  const tally = (t: { problemLinks: number; occurrences: number }) => ({
    problem_links: t.problemLinks,
    occurrences: t.occurrences,
  });
  return {
    status: report.status,
    counts: {
      pages: report.counts.pages,
      ...tally(report.counts),
      reasons: Object.fromEntries(REPORT_REASONS.map((r) => [r, tally(report.counts.reasons[r])])),
    },
    summary,
    links,
    top_links: report.topLinks
      .slice(0, TOP_LINKS_MAX)
      .map((l) => ({ link: l.url, reason: l.reason, http_status: l.httpStatus, pages: l.pages })),
    targets: report.targets.map((t) => ({
      host: t.host,
      link_tracking: t.linkTracking,
      walk_links: t.walkLinks,
      last_crawl_error: t.lastCrawlError,
      pages: t.pages,
    })),
    truncated: report.truncated,
    next_cursor: report.next_cursor ?? null,
    last_full_crawl: report.lastFullCrawl,
  };
}

/** A post's page meta with what the index holds of its URL. */
export function toAbilityPageMeta(meta: PageMeta, index: PageIndexState): z.output<typeof PageMetaSchema> {
  return { ...meta, index: { indexed: index.indexed, in_search: index.inSearch, last_crawled: index.lastCrawled } };
}

export function toAbilityCrawlRecord(r: CrawlRecord): AbilityCrawlRecord {
  const out: AbilityCrawlRecord = {
    id: r.id,
    mode: r.mode,
    status: r.status,
    urls: r.urls ?? null,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
    report_ready_at: r.reportReadyAt ?? null,
    indexed_at: r.indexedAt ?? null,
    stats: {
      pages: r.stats.pages,
      links: r.stats.links,
      errors: r.stats.errors,
      problem_links: r.stats.problemLinks ?? null,
      occurrences: r.stats.occurrences ?? null,
    },
    error: r.error ?? null,
  };
  if (r.stats.targets) {
    out.stats.targets = Object.fromEntries(
      Object.entries(r.stats.targets).map(([host, t]) => [host, { pages: t.pages, cut_by_max_pages: t.cutByMaxPages }]),
    );
  }
  return out;
}

export function toAbilityDeleteResult(r: DeletePagesResult): { deleted: string[]; not_found: string[] } {
  return { deleted: r.deleted, not_found: r.notFound };
}

const WAIT = 'call svc/get-crawl with wait_seconds (up to 60, repeat until it ends) to wait for it';
const RUN_FULL = 'run svc/full-crawl (a user with manage_options), then follow it with svc/get-crawl and wait_seconds';

/** What to do next when a search found nothing: the index may be empty, or a crawl still filling it. Null when neither. */
export function searchNotice(latest: CrawlRecord | null): string | null {
  if (!latest) return `The search index is empty: no crawl has run yet. To fill it, ${RUN_FULL}.`;
  if (!crawlEnded(latest.status))
    return `Crawl ${latest.id} (${latest.mode}) is still ${latest.status} (${latest.stats.pages} pages so far): the index is not complete yet; ${WAIT}.`;
  return null;
}

/**
 * What to do next when the report cannot be complete yet: no crawl stored anything of the targets, no completed
 * full crawl, or a crawl still running.
 */
export function reportNotice(
  lastFullCrawl: string | null,
  latest: CrawlRecord | null,
  status: LinkReport['status'] = 'ready',
): string | null {
  if (latest && !crawlEnded(latest.status)) {
    return `Crawl ${latest.id} (${latest.mode}) is still ${latest.status}: this report will change when it ends; ${WAIT}, then read the report with refresh: true.`;
  }
  if (status === 'not_crawled')
    return `Not crawled yet: no crawl has stored a page of the targets, so the empty report says nothing about the site (it is not an all-clear). To fill it, ${RUN_FULL}.`;
  if (lastFullCrawl !== null) return null;
  if (!latest) return `No crawl has run yet, so the report is empty. To fill it, ${RUN_FULL}.`;
  return `No full crawl has completed yet (the latest, crawl ${latest.id} (${latest.mode}), ended ${latest.status}${latest.error ? `: ${latest.error}` : ''}): the report holds only what partial or manual crawls found. For a complete report, ${RUN_FULL}.`;
}
