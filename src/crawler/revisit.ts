// What a re-crawl needs to skip work on a page that did not change: the settings key a stored page is reused
// under, the conditional request headers, the hash of a body (with the headers that shaped the stored page), and
// the links as found, in a compact form of the crawler's own that the store keeps as opaque text. PURE.
import { createHash, type Hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { TargetConfig } from '../model/config.js';
import { header } from './fetcher.js';
import type { ExtractedLink, StoredRevisit } from '../model/crawl-writes.js';

/** Bump when extraction changes what a page yields (text, links): every stored page is then fetched and parsed again. */
const EXTRACTION_VERSION = 3; // 2: headings (h1–h6) are extracted; 3: the page's Markdown; 4: <dt> terms as headings

/**
 * The settings a page of target `cfg` is stored under: a stored page (text, links, what walking them does) is only
 * reused by a crawl with the same key. `origins` are every target's origin with its walk_query_strings (which
 * target owns a link, and its canonical form); `fragments`: some target checks fragments (ids are collected).
 */
export function revisitKey(
  cfg: TargetConfig,
  origins: readonly (readonly [string, boolean])[],
  fragments: boolean,
): string {
  const shape = {
    v: EXTRACTION_VERSION,
    fragments,
    origins,
    content: cfg.content_selector ?? null,
    title: cfg.title_selector ?? null,
    track: cfg.track_links,
    skip: cfg.skip_link_patterns,
    frag: cfg.check_fragments,
    css: cfg.check_css,
    robots: cfg.respect_robots_meta,
    tags: cfg.tags,
    query: cfg.walk_query_strings,
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url').slice(0, 22);
}

/** If-None-Match / If-Modified-Since for a stored page's validators (none when it has neither). */
export function conditionalHeaders(
  stored: Pick<StoredRevisit, 'etag' | 'lastModified'>,
): Record<string, string> | undefined {
  if (!stored.etag && !stored.lastModified) return undefined;
  const h: Record<string, string> = {};
  if (stored.etag) h['if-none-match'] = stored.etag;
  if (stored.lastModified) h['if-modified-since'] = stored.lastModified;
  return h;
}

/** Response headers that shape what is stored of a page besides its body (charset, language, robots, modified). */
const SHAPING_HEADERS = ['content-type', 'content-language', 'x-robots-tag', 'last-modified'];

/** A hash fed the body's chunks as they come; it starts with the headers that shaped the stored page. */
export function bodyHasher(headers: IncomingHttpHeaders): Hash {
  return createHash('sha256').update(SHAPING_HEADERS.map((h) => header(headers, h) ?? '').join('\n') + '\n\n');
}

/** What is kept of a page's links for a revisit. */
export interface FoundLinks {
  /** The page said nofollow (meta robots or X-Robots-Tag, as the target respects them). */
  nofollow: boolean;
  /** An HTML page (a fragment is checked against its ids), not another document. */
  html: boolean;
  links: ExtractedLink[];
}

const WALKABLE = 1;
const NOFOLLOW = 2;
const STYLESHEET = 4;

/** The compact text form: {n, h, l: [[url, element, flags, text, fragment?], …]}. */
export function encodeFound(f: FoundLinks): string {
  const l = f.links.map((x) => {
    const flags = (x.walkable ? WALKABLE : 0) | (x.nofollow ? NOFOLLOW : 0) | (x.stylesheet ? STYLESHEET : 0);
    return x.fragment ? [x.url, x.element, flags, x.text, x.fragment] : [x.url, x.element, flags, x.text];
  });
  return JSON.stringify({ n: f.nofollow ? 1 : 0, h: f.html ? 1 : 0, l });
}

/** The links as stored by encodeFound; null when the text is not that form. */
export function decodeFound(s: string): FoundLinks | null {
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch {
    return null;
  }
  const o = v as { n?: unknown; h?: unknown; l?: unknown };
  if (!o || typeof o !== 'object' || !Array.isArray(o.l)) return null;
  const links: ExtractedLink[] = [];
  for (const e of o.l as unknown[]) {
    if (
      !Array.isArray(e) ||
      typeof e[0] !== 'string' ||
      typeof e[1] !== 'string' ||
      typeof e[2] !== 'number' ||
      typeof e[3] !== 'string'
    )
      return null;
    const link: ExtractedLink = {
      url: e[0],
      element: e[1],
      walkable: (e[2] & WALKABLE) !== 0,
      nofollow: (e[2] & NOFOLLOW) !== 0,
      text: e[3],
    };
    if (e[2] & STYLESHEET) link.stylesheet = true;
    if (typeof e[4] === 'string' && e[4]) link.fragment = e[4];
    links.push(link);
  }
  return { nofollow: o.n === 1, html: o.h === 1, links };
}
