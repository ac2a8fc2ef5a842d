// The view model every rendering of the link report starts from: the reasons with their titles and counts, and
// one flat row per (page, link) in the ability's snake_case form, so the MCP App can take svc-link-report's answer
// as it comes. The REST form (svc report, the console) is put in that form here and read the same way.
import { LINK_REASONS, type LinkReason } from '../model/link-reasons.js';
import type { LinkReport } from '../model/types.js';
import { fromAbilityReport } from './render.js';

export interface ViewReason {
  reason: string;
  title: string;
  description: string;
  broken: boolean;
  /** The reason's full number of occurrences (page, link pairs), whatever the limit. */
  count: number;
  /** The reason's distinct problem links, whatever the limit. */
  links: number;
}

export interface ViewRow {
  page: string;
  link: string;
  http_status: number;
  reason: string;
  message: string;
  redirects_to: string | null;
  element: string;
  text: string;
  blocked: boolean;
  first_seen: string | null;
}

export interface ViewTarget {
  host: string;
  link_tracking: string;
  walk_links: boolean;
  /** Why a near-empty report may not mean a healthy site, or null. */
  note: string | null;
}

/** A problem link with the pages carrying it over the whole report (not only the rows shown). */
export interface ViewTopLink {
  link: string;
  reason: string;
  http_status: number;
  pages: number;
}

export interface ViewData {
  /** The problem links on the most pages, counted over the whole report; [] when not told. */
  top_links: ViewTopLink[];
  /** Pages stored, distinct problem links and occurrences in total, whatever the limit (null from an older answer). */
  totals: { pages: number; links: number; occurrences: number } | null;
  /** ready, or not_crawled: nothing of the site is stored, so no count means anything yet. */
  status: string;
  reasons: ViewReason[];
  /** Report order: reason, page, link. */
  rows: ViewRow[];
  targets: ViewTarget[];
  /** The one target's host (host or host:port) that URLs are shown relative to; null with several targets. */
  base: string | null;
  last_full_crawl: string | null;
  truncated: boolean;
  notice: string | null;
  tool_version: string | null;
}

const TEXT: Record<LinkReason, { title: string; description: string }> = {
  not_found: {
    title: 'Not found',
    description: 'The link answers 404 or 410 (or its page lacks the #fragment it names).',
  },
  forbidden: { title: 'Forbidden', description: 'The link answers 401, 403 or 451: readers cannot open it.' },
  server_error: {
    title: 'Server error',
    description:
      'The link answers another 4xx or a 5xx, or nothing usable: timeout, refused connection, unknown host, TLS error, redirect loop.',
  },
  redirect: {
    title: 'Redirect',
    description: 'The link redirects to a page that answers: link to the final address instead.',
  },
  unknown: {
    title: 'Unknown',
    description: 'Found but not checked: the crawl stopped early (max_pages reached, or stopped).',
  },
};

/** The reasons in section order with their titles, for people. */
export const REASON_TEXT: readonly (Omit<ViewReason, 'count' | 'links'> & { reason: LinkReason })[] = LINK_REASONS.map(
  (r) => ({
    reason: r.reason,
    broken: r.broken,
    ...TEXT[r.reason],
  }),
);

/** The REST form of the report as the view model. */
export function viewOfReport(r: LinkReport, toolVersion?: string): ViewData {
  const rows: ViewRow[] = LINK_REASONS.flatMap(({ reason, section }) =>
    r[section].pages.flatMap((p) =>
      p.links.map((l) => ({
        page: p.url,
        link: l.url,
        http_status: l.httpStatus,
        reason,
        message: l.message,
        redirects_to: l.redirectsTo ?? null,
        element: l.element,
        text: l.text,
        blocked: l.blocked === true,
        first_seen: l.firstSeen ?? null,
      })),
    ),
  );
  const summary = Object.fromEntries(LINK_REASONS.map(({ reason, section }) => [reason, r[section].count]));
  const targets = r.targets.map((t) => ({ host: t.host, link_tracking: t.linkTracking, walk_links: t.walkLinks }));
  const tally = (t: { problemLinks: number; occurrences: number }) => ({
    problem_links: t.problemLinks,
    occurrences: t.occurrences,
  });
  const counts = {
    pages: r.counts.pages,
    ...tally(r.counts),
    reasons: Object.fromEntries(LINK_REASONS.map(({ reason }) => [reason, tally(r.counts.reasons[reason])])),
  };
  // As the ability answers them: at most 20 (TOP_LINKS_MAX there), so the App and the file render alike.
  const top_links = r.topLinks
    .slice(0, 20)
    .map((l) => ({ link: l.url, reason: l.reason, http_status: l.httpStatus, pages: l.pages }));
  const out = {
    status: r.status,
    counts,
    top_links,
    summary,
    links: rows,
    targets,
    truncated: r.truncated,
    last_full_crawl: r.lastFullCrawl,
  };
  return { ...fromAbilityReport(out, [...REASON_TEXT]), tool_version: toolVersion ?? null };
}
