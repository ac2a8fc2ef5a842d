// Link reports built by hand: an empty one, and for the format tests a sample with every reason, a page with
// several problems, a link found on two pages, a blocked answer, the optional fields, and hostile text (markup,
// quotes, commas, line breaks, control characters) where a crawled site could put it.
import { problemCounts } from '../../src/model/counts.js';
import { LINK_REASONS } from '../../src/model/link-reasons.js';
import type { LinkReport, ReportLink, ReportPage } from '../../src/model/types.js';

export const SITE = 'https://site.example';
export const HOSTILE_TEXT = `Read "more", <b>now</b> | & </script><script>alert(1)</script>\nline two\u0007`;

/**
 * A hand-built report with its counts as the store would count them: problem links are the distinct URLs listed per
 * reason, occurrences the sections' counts, pages the targets'.
 */
export function withCounts(r: Omit<LinkReport, 'counts' | 'topLinks'> & Partial<LinkReport>): LinkReport {
  const tallies = LINK_REASONS.map(({ section }, rank) => ({
    rank,
    problemLinks: new Set(r[section].pages.flatMap((p) => p.links.map((l) => l.url))).size,
    occurrences: r[section].count,
  }));
  if (r.counts && r.topLinks) return r as LinkReport;
  // Pages per problem link, most first, then report order, then URL: as the store orders them.
  const byUrl = new Map<string, { top: LinkReport['topLinks'][number]; rank: number }>();
  for (const [rank, { reason, section }] of LINK_REASONS.entries())
    for (const p of r[section].pages)
      for (const l of p.links) {
        const e = byUrl.get(l.url) ?? { top: { url: l.url, reason, httpStatus: l.httpStatus, pages: 0 }, rank };
        e.top.pages++;
        byUrl.set(l.url, e);
      }
  const topLinks = [...byUrl.values()]
    .sort((a, b) => b.top.pages - a.top.pages || a.rank - b.rank || (a.top.url < b.top.url ? -1 : 1))
    .map((e) => e.top);
  const pages = r.targets.reduce((n, t) => n + (t.pages ?? 0), 0);
  return { ...r, topLinks: r.topLinks ?? topLinks, counts: r.counts ?? { pages, ...problemCounts(tallies) } };
}

function section(pages: ReportPage[], extra = 0) {
  return { count: pages.reduce((n, p) => n + p.links.length, 0) + extra, pages };
}

function link(path: string, httpStatus: number, message: string, more: Partial<ReportLink> = {}): ReportLink {
  return { url: `${SITE}${path}`, httpStatus, message, element: 'a', text: '', ...more };
}

export function sampleReport(): LinkReport {
  return withCounts({
    status: 'ready',
    notFound: section([
      {
        url: `${SITE}/`,
        links: [
          link('/gone', 404, '404 Not Found', {
            element: 'a',
            text: 'Gone page',
            firstSeen: '2026-11-01T10:00:00.000Z',
          }),
          link('/img/logo.png', 404, '404 Not Found', { element: 'img', text: HOSTILE_TEXT }),
        ],
      },
      { url: `${SITE}/blog/a,b`, links: [link('/gone', 404, '404 Not Found', { element: 'a', text: 'again' })] },
    ]),
    forbidden: section([
      {
        url: `${SITE}/`,
        links: [
          link('/members', 403, '403 Forbidden', { element: 'a', text: 'Members' }),
          {
            url: 'https://linkedin.example/in/x',
            httpStatus: 999,
            message: 'blocked: 999 (bot block)',
            element: 'a',
            text: 'Profile',
            blocked: true,
          },
        ],
      },
    ]),
    serverError: section([
      { url: `${SITE}/docs`, links: [link('/api', 500, '500 Internal Server Error', { element: 'script' })] },
    ]),
    redirect: section([
      {
        url: `${SITE}/docs`,
        links: [link('/old', 301, '301 Moved Permanently', { redirectsTo: `${SITE}/new`, element: 'a', text: 'Old' })],
      },
    ]),
    unknown: section([
      { url: `${SITE}/docs`, links: [link('/later', 0, 'not fetched: max_pages (10) reached', { element: 'css' })] },
    ]),
    targets: [{ host: 'site.example', linkTracking: 'all', walkLinks: true, lastCrawlError: null, pages: 3 }],
    truncated: false,
    lastFullCrawl: '2026-11-20T08:00:00.000Z',
  });
}

/** Problem (page, link) pairs in sampleReport, per reason. */
export const SAMPLE_COUNTS = { not_found: 3, forbidden: 2, server_error: 1, redirect: 1, unknown: 1 } as const;

/** Problem links (distinct URLs) in sampleReport, per reason: /gone is linked from two pages. */
export const SAMPLE_PROBLEM_LINKS = { not_found: 2, forbidden: 2, server_error: 1, redirect: 1, unknown: 1 } as const;

/** A report with no problem link and no target, or with the fields given. */
export function emptyReport(over: Partial<LinkReport> = {}): LinkReport {
  const section = () => ({ count: 0, pages: [] });
  return withCounts({
    status: 'ready',
    notFound: section(),
    forbidden: section(),
    serverError: section(),
    redirect: section(),
    unknown: section(),
    targets: [],
    truncated: false,
    lastFullCrawl: null,
    ...over,
  });
}
