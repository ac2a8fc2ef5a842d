// Pure mappings from the backend's REST forms (camelCase) to the abilities' forms (snake_case).
import { type CrawlRecord, type DeletePagesResult, type LinkReport, type ReportSection } from '../model/types.js';
import type { z } from 'zod';
import type { AbilityLinkReportSchema, CrawlRecordSchema } from './schemas.js';
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
        });
      }
    }
  }
  return {
    summary,
    links,
    targets: report.targets.map((t) => ({ host: t.host, link_tracking: t.linkTracking, walk_links: t.walkLinks, last_crawl_error: t.lastCrawlError })),
    truncated: report.truncated,
    last_full_crawl: report.lastFullCrawl,
  };
}

export function toAbilityCrawlRecord(r: CrawlRecord): AbilityCrawlRecord {
  const out: AbilityCrawlRecord = {
    id: r.id,
    mode: r.mode,
    status: r.status,
    urls: r.urls ?? null,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
    stats: { pages: r.stats.pages, links: r.stats.links, errors: r.stats.errors },
    error: r.error ?? null,
  };
  if (r.stats.targets) {
    out.stats.targets = Object.fromEntries(Object.entries(r.stats.targets).map(([host, t]) => [host, { pages: t.pages, cut_by_max_pages: t.cutByMaxPages }]));
  }
  return out;
}

export function toAbilityDeleteResult(r: DeletePagesResult): { deleted: string[]; not_found: string[] } {
  return { deleted: r.deleted, not_found: r.notFound };
}
