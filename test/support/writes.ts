// What a crawl writes (PageWrite, OutcomeWrite), built by hand, and the seeds tests write through a store's crawl
// writer: a small site with every reason on two hosts, or many problem links.
import type { App } from '../../src/app/open-app.js';
import type { OutcomeWrite, PageWrite } from '../../src/model/crawl-writes.js';
import type { LinkOutcomeReason } from '../../src/model/link-reasons.js';
import { HOST_A, HOST_B } from './app.js';
import { writeThrough } from './stores.js';

/** A stored, searchable HTML page at `url` with no title, text or links (crawl 1), then `over`. */
export function pageWrite(url: string, over: Partial<PageWrite> = {}): PageWrite {
  return {
    url,
    host: new URL(url).host,
    httpStatus: 200,
    contentType: 'text/html',
    indexed: true,
    showInSearch: true,
    title: '',
    language: 'en',
    tags: ['public'],
    superwords: [],
    content: '',
    meta: null,
    created: null,
    modified: null,
    sitemapLastmod: null,
    crawlId: 1,
    links: [],
    ...over,
  };
}

/** The search tests' host: their pages are paths on it. */
export const HOST = '127.0.0.1:18111';
export const BASE = `http://${HOST}`;

/** A page of the search tests: `path` on BASE. */
export function searchPage(path: string, over: Partial<PageWrite> = {}): PageWrite {
  return pageWrite(`${BASE}${path}`, over);
}

/** A page of the report tests: titled after its URL, some words, linking to `links` (no crawl). */
export function linkingPage(url: string, links: string[], over: Partial<PageWrite> = {}): PageWrite {
  return pageWrite(url, {
    title: `Title of ${url}`,
    content: 'some words',
    crawlId: null,
    links: links.map((u) => ({ url: u, element: 'a', text: '' })),
    ...over,
  });
}

const STATUS: Record<LinkOutcomeReason, number> = {
  ok: 200,
  skipped: 0,
  not_found: 404,
  forbidden: 403,
  server_error: 500,
  redirect: 301,
  unknown: 0,
};

export function outcome(url: string, reason: LinkOutcomeReason, over: Partial<OutcomeWrite> = {}): OutcomeWrite {
  return {
    url,
    httpStatus: STATUS[reason],
    reason,
    message: `${reason} message`,
    redirectsTo: reason === 'redirect' ? `${url}-moved` : null,
    crawlId: null,
    ...over,
  };
}

/**
 * A small site with every reason, on two hosts:
 *  a.example/  → /missing (404), /secret (403), /fail (500), /old (301), /later (unknown), /ok (ok), /skip (skipped)
 *  a.example/b → /missing (404), /old (301)
 *  b.example:8080/ → /doc.pdf (404)
 */
export async function seedSmallSite(app: App): Promise<void> {
  await writeThrough(app.store, smallSiteWrites());
}

/** What seedSmallSite writes. */
export function smallSiteWrites(): { pages: PageWrite[]; outcomes: OutcomeWrite[] } {
  const a = `https://${HOST_A}`;
  const b = `http://${HOST_B}`;
  return {
    pages: [
      linkingPage(`${a}/`, [
        `${a}/missing`,
        `${a}/secret`,
        `${a}/fail`,
        `${a}/old`,
        `${a}/later`,
        `${a}/ok`,
        `${a}/skip`,
      ]),
      linkingPage(`${a}/b`, [`${a}/old`, `${a}/missing`]),
      linkingPage(`${b}/`, [`${b}/doc.pdf`]),
    ],
    outcomes: [
      outcome(`${a}/missing`, 'not_found'),
      outcome(`${a}/secret`, 'forbidden'),
      outcome(`${a}/fail`, 'server_error'),
      outcome(`${a}/old`, 'redirect', { redirectsTo: `${a}/new` }),
      outcome(`${a}/later`, 'unknown', { message: 'not fetched: max_pages reached' }),
      outcome(`${a}/ok`, 'ok'),
      outcome(`${a}/skip`, 'skipped'),
      outcome(`${b}/doc.pdf`, 'not_found'),
    ],
  };
}

/** `n` problem links over `pages` pages of HOST_A, reasons in turn; returns per-reason counts. */
export async function seedMany(app: App, pages: number, linksPerPage: number): Promise<Record<string, number>> {
  const w = manyWrites(pages, linksPerPage);
  await writeThrough(app.store, w);
  return w.counts;
}

/** What seedMany writes, and its per-reason counts. */
export function manyWrites(
  pages: number,
  linksPerPage: number,
): { pages: PageWrite[]; outcomes: OutcomeWrite[]; counts: Record<string, number> } {
  const reasons = ['not_found', 'forbidden', 'server_error', 'redirect', 'unknown'] as const;
  const counts: Record<string, number> = { not_found: 0, forbidden: 0, server_error: 0, redirect: 0, unknown: 0 };
  const pw: PageWrite[] = [];
  const ow: OutcomeWrite[] = [];
  for (let p = 0; p < pages; p++) {
    const links: string[] = [];
    for (let l = 0; l < linksPerPage; l++) {
      const url = `https://${HOST_A}/broken/${p}-${l}`;
      const reason = reasons[(p + l) % reasons.length]!;
      counts[reason]!++;
      links.push(url);
      ow.push(outcome(url, reason));
    }
    pw.push(linkingPage(`https://${HOST_A}/p/${String(p).padStart(4, '0')}`, links));
  }
  return { pages: pw, outcomes: ow, counts };
}
