// Reading the site from what the crawl stored (no request to the site): one page as Markdown in chunks or one
// section, the stored pages under a prefix paged by an opaque cursor, and each search hit's best section. The
// embedded backend answers with these; the /v1 facade and the abilities pass them on.
import type { TargetConfig } from '../model/config.js';
import { BackendError } from '../model/errors.js';
import { bestSection, chunkOf, matchTerms, sectionRange } from '../model/page-content.js';
import { canonicalTargetHosts, checkSiteUrl, targetOrigin } from '../model/site-urls.js';
import type { SearchResults } from '../model/types.js';
import { listStoredPages, pageOutlines, readPageContent } from '../store/page-content.js';
import type { Sql } from '../store/sql.js';
import { normalizeUrl } from '../crawler/urls.js';
import type { PageContent, PageContentQuery, PageList, PageListQuery } from './page-contract.js';

/** Outline entries one answer carries (a page of a few hundred headings would fill a model's context alone). */
const OUTLINE_MAX = 60;
/** Anchors an unknown section's error lists. */
const ANCHORS_LISTED = 60;

function notStored(url: string): BackendError {
  return new BackendError(
    'not_found',
    `no stored page at ${url}: find pages with svc/search, or list the stored ones with svc/list-pages`,
  );
}

/** A page URL as the caller gave it → the URLs it may be stored under (as given and canonical, without #fragment). */
function storedForms(raw: string, targets: readonly TargetConfig[]): string[] {
  const checked = checkSiteUrl(raw, targets);
  if (typeof checked === 'string') throw new BackendError('invalid_input', `url: ${checked}`);
  checked.hash = '';
  const given = checked.href;
  const canonical = normalizeUrl(given);
  return canonical && canonical !== given ? [given, canonical] : [given];
}

/** One stored page as Markdown: a chunk of it, or of one section. */
export async function readPage(sql: Sql, targets: readonly TargetConfig[], q: PageContentQuery): Promise<PageContent> {
  const hosts = canonicalTargetHosts(targets);
  let page = null;
  for (const url of storedForms(q.url, targets)) {
    page = await readPageContent(sql, url, hosts);
    if (page) break;
  }
  // A page the caller may not see in search is answered exactly like a page that is not stored.
  if (!page || (q.in_search && !page.inSearch)) throw notStored(q.url);
  let text = page.markdown;
  let section: string | null = null;
  if (q.section !== undefined) {
    const range = sectionRange(page.outline, page.markdown, q.section);
    if (!range) {
      const anchors = page.outline.map((e) => e.anchor);
      const listed = anchors.length
        ? `its anchors: ${anchors.slice(0, ANCHORS_LISTED).join(', ')}${anchors.length > ANCHORS_LISTED ? ` … (${anchors.length - ANCHORS_LISTED} more)` : ''}`
        : 'it has no headings (read it without section)';
      throw new BackendError('invalid_input', `section: the page has no section "${q.section}"; ${listed}`);
    }
    section = page.outline.find((e) => range[0] === e.start)!.anchor;
    text = page.markdown.slice(range[0], range[1]);
  }
  const chunk = chunkOf(text, q.start_index, q.max_length);
  return {
    url: page.url,
    title: page.title,
    lang: page.lang,
    last_crawled: page.lastCrawled,
    in_search: page.inSearch,
    outline: page.outline.slice(0, OUTLINE_MAX).map((e) => ({ level: e.level, heading: e.text, anchor: e.anchor })),
    outline_total: page.outline.length,
    section,
    markdown: chunk.text,
    start_index: q.start_index,
    max_length: q.max_length,
    total_length: text.length,
    next_start_index: chunk.nextStartIndex,
  };
}

interface Cursor {
  /** Project, prefix and filter the cursor was made for: a cursor of another listing is refused. */
  k: string;
  /** The last address answered. */
  a: string;
}

const listingKey = (project: string, prefix: string, inSearch: boolean) => `${project} ${inSearch ? 1 : 0} ${prefix}`;

function badCursor(why: string): BackendError {
  return new BackendError(
    'invalid_input',
    `cursor: ${why}; give the next_cursor of the previous answer, or no cursor to start again`,
  );
}

function decodeCursor(raw: string, key: string): string {
  let c: Partial<Cursor>;
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor>;
  } catch {
    throw badCursor('is not a cursor svc gave');
  }
  if (typeof c?.k !== 'string' || typeof c.a !== 'string') throw badCursor('is not a cursor svc gave');
  if (c.k !== key) throw badCursor('belongs to another listing (another prefix or project)');
  return c.a;
}

/** The stored pages under a path or URL prefix, in address order, `limit` at a time. */
export async function listPages(
  sql: Sql,
  project: string,
  targets: readonly TargetConfig[],
  q: PageListQuery,
): Promise<PageList> {
  const inSearch = q.in_search ?? false;
  let prefixes: string[];
  if (q.prefix.startsWith('/')) prefixes = targets.map((t) => targetOrigin(t.host, t.scheme) + q.prefix);
  else {
    const checked = checkSiteUrl(q.prefix, targets);
    if (typeof checked === 'string') throw new BackendError('invalid_input', `prefix: ${checked}`);
    // The URL parser adds a "/" to a bare origin; any other prefix is compared as written (host in lower case).
    prefixes = [q.prefix.replace(/^https?:\/\/[^/?#]+/i, checked.origin)];
  }
  const key = listingKey(project, q.prefix, inSearch);
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor, key);
  const { pages, total } = await listStoredPages(sql, { prefixes, after, limit: q.limit + 1, inSearchOnly: inSearch });
  const more = pages.length > q.limit;
  const shown = more ? pages.slice(0, q.limit) : pages;
  const last = shown[shown.length - 1];
  return {
    prefix: q.prefix,
    pages: shown.map((p) => ({ url: p.url, title: p.title, last_crawled: p.lastCrawled, in_search: p.inSearch })),
    total,
    next_cursor:
      more && last ? Buffer.from(JSON.stringify({ k: key, a: last.url } satisfies Cursor)).toString('base64url') : null,
  };
}

/** Each hit with the section of its page that best matches the query (null when none does, or it has no headings). */
export async function withSections(sql: Sql, terms: string, results: SearchResults): Promise<SearchResults> {
  if (!results.hits.length) return results;
  const stored = await pageOutlines(
    sql,
    results.hits.map((h) => h.url),
  );
  return {
    ...results,
    hits: results.hits.map((hit) => {
      const page = stored.get(hit.url);
      const best = page ? bestSection(page.outline, page.markdown, matchTerms(terms, hit.highlight)) : null;
      return { ...hit, section: best ? { heading: best.text, anchor: best.anchor } : null };
    }),
  };
}
