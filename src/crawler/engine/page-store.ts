// What a fetched page becomes in the store: an HTML page indexed with its meta and links, a document (PDF,
// image, stylesheet…) kept as seen but never searched, or a stored page kept as it was (304, or the same body),
// each with what the next crawl needs to revisit it.
import type { ExtractedLink, PageRevisit, PageWrite, StoredRevisit } from '../../model/crawl-writes.js';
import { header as responseHeader, type FetchResult } from '../fetcher.js';
import type { ExtractedPage } from '../html/extractor.js';
import { buildPageMeta } from '../page-meta.js';
import { decodeFound, encodeFound } from '../revisit.js';
import { xRobotsTag } from '../robots.js';
import type { CrawlContext } from './context.js';
import { handleLinks } from './links.js';
import { isHtml } from './page-body.js';
import { REVISIT_BATCH } from './revisit-reads.js';
import type { TargetRun } from './target.js';

/** A page this crawl fetched, and under which URL it is stored. */
export interface FetchedPage {
  run: TargetRun;
  /** Its canonical URL (the end of its redirects, when it was redirected within its target). */
  url: string;
  /** The URL it was requested as. */
  requested: string;
  res: FetchResult;
}

/**
 * What the store holds of a page of run that this crawl may reuse (stored under the same settings), or null. Read
 * with the rows of the pages queued next (`ahead`: a queued page's fetch; a redirect's end reads alone).
 */
export async function revisitOf(
  ctx: CrawlContext,
  run: TargetRun,
  url: string,
  ahead = true,
): Promise<StoredRevisit | null> {
  const stored = await ctx.revisits.take(url, () => (ahead ? run.upcoming(REVISIT_BATCH - 1) : []));
  return stored && stored.key === run.revisitKey ? stored : null;
}

/** The sitemap lastmod of a page (under its own URL, or the one it was requested as). */
function lastmodOf(ctx: CrawlContext, page: FetchedPage): string | null {
  const { run } = page;
  return (
    run.sitemap?.get(page.url) ??
    run.sitemap?.get(page.requested) ??
    ctx.shared?.claimedLastmods.get(page.requested) ??
    null
  );
}

/**
 * A stored page this crawl found unchanged stays as it is: its links are walked and checked as if just found on
 * it (this crawl's outcomes and walk need them), nothing indexed is written. False when its links cannot be read.
 */
export function keepPage(
  ctx: CrawlContext,
  page: FetchedPage,
  stored: StoredRevisit,
  kind: 'notModified' | 'unchanged',
): boolean {
  const found = decodeFound(stored.found);
  if (!found) {
    ctx.logger.warn({ url: page.url }, 'the stored links of a page could not be read: fetching it in full');
    return false;
  }
  if (!found.html) ctx.fragments?.notHtmlPage(page.url);
  if (found.links.length) handleLinks(ctx, page.run, found.links, found.nofollow, false);
  // A 304 may omit validators that still hold; a 200's own are the ones to ask with next time.
  const etag = responseHeader(page.res.headers, 'etag') ?? (kind === 'notModified' ? stored.etag : null);
  const lastModified =
    responseHeader(page.res.headers, 'last-modified') ?? (kind === 'notModified' ? stored.lastModified : null);
  ctx.writer.keep({
    url: page.url,
    crawlId: ctx.options.crawlId,
    sitemapLastmod: lastmodOf(ctx, page),
    etag,
    lastModified,
    kind,
  });
  countStored(ctx, page.run);
  ctx.counts[kind]++;
  return true;
}

/** What the next crawl needs to revisit a page: its validators, body hash, settings key and found links. */
function pageRevisit(
  page: FetchedPage,
  bodyHash: string | null,
  links: ExtractedLink[],
  nofollow: boolean,
  html: boolean,
): PageRevisit {
  return {
    etag: responseHeader(page.res.headers, 'etag') ?? null,
    lastModified: responseHeader(page.res.headers, 'last-modified') ?? null,
    bodyHash,
    key: page.run.revisitKey,
    found: encodeFound({ nofollow, html, links }),
  };
}

const EMPTY_PAGE: ExtractedPage = {
  title: '',
  text: '',
  lang: null,
  description: null,
  embeddedMeta: null,
  links: [],
  robots: { noindex: false, nofollow: false },
  baseUrl: '',
  headings: [],
  markdown: '',
  outline: [],
};

/**
 * A document that is not HTML (PDF, image, stylesheet…), or an HTML page that could not be parsed: stored so it
 * counts as seen, never in the search index. links: what a stylesheet holds.
 */
export function storeDocument(
  ctx: CrawlContext,
  page: FetchedPage,
  bodyHash: string | null,
  links: ExtractedLink[] = [],
): void {
  const { run, res } = page;
  const meta = buildPageMeta({
    url: page.url,
    host: run.host,
    extracted: EMPTY_PAGE,
    lastModified: responseHeader(res.headers, 'last-modified') ?? null,
    targetTags: run.config.tags,
  });
  ctx.fragments?.notHtmlPage(page.url);
  // An HTML page that could not be parsed (no hash) is not revisited: the next crawl fetches and parses it again.
  const revisitable = bodyHash !== null || !isHtml(res.contentType);
  ctx.writer.page({
    url: page.url,
    host: run.host,
    httpStatus: res.ok ? res.status : 200,
    contentType: res.contentType,
    indexed: false,
    showInSearch: meta.showInSearch,
    title: meta.title,
    language: null,
    tags: meta.tags,
    superwords: [],
    content: '',
    meta,
    created: null,
    modified: meta.modified,
    sitemapLastmod: lastmodOf(ctx, page),
    crawlId: ctx.options.crawlId,
    links: links.length ? handleLinks(ctx, run, links, false) : [],
    revisit: revisitable ? pageRevisit(page, bodyHash, links, false, false) : null,
  });
  countStored(ctx, run);
}

/** An HTML page: indexed (unless noindex) with its meta, text, headings and links; its links walked and checked. */
export function storeHtmlPage(
  ctx: CrawlContext,
  page: FetchedPage,
  extracted: ExtractedPage,
  bodyHash: string | null,
): void {
  const { run, res } = page;
  const config = run.config;
  const header = config.respect_robots_meta
    ? xRobotsTag(res.headers['x-robots-tag'])
    : { noindex: false, nofollow: false };
  const meta = config.respect_robots_meta ? extracted.robots : { noindex: false, nofollow: false };
  const noindex = header.noindex || meta.noindex;
  const nofollow = header.nofollow || meta.nofollow;
  const pageMeta = buildPageMeta({
    url: page.url,
    host: run.host,
    extracted,
    lastModified: responseHeader(res.headers, 'last-modified') ?? null,
    contentLanguage: responseHeader(res.headers, 'content-language') ?? null,
    targetTags: config.tags,
  });
  const links = handleLinks(ctx, run, extracted.links, nofollow);
  const write: PageWrite = {
    url: page.url,
    host: run.host,
    httpStatus: res.ok ? res.status : 200,
    contentType: res.contentType,
    indexed: !noindex,
    showInSearch: pageMeta.showInSearch,
    title: pageMeta.title,
    language: pageMeta.language,
    tags: pageMeta.tags,
    superwords: pageMeta.superwords,
    content: extracted.text,
    meta: pageMeta,
    created: pageMeta.created,
    modified: pageMeta.modified,
    sitemapLastmod: lastmodOf(ctx, page),
    crawlId: ctx.options.crawlId,
    links,
    anchors: extracted.anchors ?? null,
    revisit: bodyHash ? pageRevisit(page, bodyHash, extracted.links, nofollow, true) : null,
    headings: extracted.headings,
    markdown: extracted.markdown,
    outline: extracted.outline,
  };
  ctx.writer.page(write);
  countStored(ctx, run);
}

function countStored(ctx: CrawlContext, run: TargetRun): void {
  run.stored++;
  ctx.counts.pagesStored++;
}
