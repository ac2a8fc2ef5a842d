// check_fragments: a link `page#fragment` is decided when the crawl ends, from its page's outcome in this crawl
// and the ids the store holds for that page, since the page may be fetched after the link is found.
import { statusText, type Classification } from '../classify.js';
import type { CrawlContext } from './context.js';
import { recordOutcome } from './outcomes.js';

/** What this crawl learns for the fragment links it found (kept only when some target checks fragments). */
export class FragmentLinks {
  /** url#fragment → its page's canonical URL and the fragment (as in the URL, percent-encoded, without '#'). */
  private readonly links = new Map<string, { page: string; fragment: string }>();
  /** This crawl's outcome of every URL of a target. */
  private readonly pageOutcomes = new Map<string, Classification>();
  /** URLs of targets stored as documents that are not HTML by this crawl (a fragment there is not checked). */
  private readonly notHtml = new Set<string>();

  get size(): number {
    return this.links.size;
  }

  /** A link `${page}#${fragment}` was found (under key). */
  found(key: string, page: string, fragment: string): void {
    if (!this.links.has(key)) this.links.set(key, { page, fragment });
  }

  pageOutcome(url: string, outcome: Classification): void {
    this.pageOutcomes.set(url, outcome);
  }

  notHtmlPage(url: string): void {
    this.notHtml.add(url);
  }

  /** Every url#fragment link found gets its outcome from its page's outcome and ids (read from the store, once a page). */
  async decide(ctx: CrawlContext): Promise<void> {
    const byPage = new Map<string, string[]>();
    for (const { page, fragment } of this.links.values()) {
      const list = byPage.get(page);
      if (list) list.push(fragment);
      else byPage.set(page, [fragment]);
    }
    for (const [page, fragments] of byPage) {
      const outcome = this.pageOutcomes.get(page);
      const notHtml = this.notHtml.has(page);
      const stored = outcome?.reason === 'ok' && !notHtml ? await ctx.reader.pageAnchors(page) : null;
      const anchors = stored ? new Set(stored) : null;
      for (const fragment of fragments)
        recordOutcome(ctx, `${page}#${fragment}`, fragmentOutcome(outcome, fragment, anchors, notHtml));
    }
  }
}

/**
 * A link `page#fragment`: as its page when that is not ok; else ok when the page (an HTML page of a target) has an
 * element with that id or an <a name>, `not_found` (200) when it has not. Pure.
 */
export function fragmentOutcome(
  page: Classification | undefined,
  fragment: string,
  anchors: ReadonlySet<string> | null,
  notHtml: boolean,
): Classification {
  if (!page)
    return {
      reason: 'unknown',
      httpStatus: 0,
      message: 'fragment not checked: the page was not checked by this crawl',
      redirectsTo: null,
    };
  if (page.reason !== 'ok' || notHtml) return page;
  if (!anchors)
    return {
      reason: 'unknown',
      httpStatus: page.httpStatus,
      message: 'fragment not checked: the page was not fetched by this crawl or one that checked fragments',
      redirectsTo: null,
    };
  let decoded = fragment;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    // not valid percent-encoding: compared as written
  }
  // "#top" means the top of the page unless the page names something so.
  if (anchors.has(fragment) || anchors.has(decoded) || decoded.toLowerCase() === 'top') {
    return { reason: 'ok', httpStatus: page.httpStatus, message: statusText(page.httpStatus), redirectsTo: null };
  }
  return { reason: 'not_found', httpStatus: 200, message: `missing fragment #${decoded}`, redirectsTo: null };
}
