// The links of one page as the streaming pass meets them: each href recorded once (later mentions merged into
// it), then resolved against the page's base into the page's links, fragments kept where they are checked. Pure.
import type { ExtractedLink } from '../../model/crawl-writes.js';
import { cssLinks } from '../css.js';
import { normalizeUrl } from '../urls.js';
import { collapseWhitespace } from './text.js';

/** Characters of a link's text kept. */
const LINK_TEXT_MAX = 100;

/** A link as written on the page, before it is resolved. */
export interface RawLink {
  raw: string;
  element: string;
  walkable: boolean;
  nofollow: boolean;
  text: string;
  stylesheet: boolean;
}

type Mention = Pick<RawLink, 'element' | 'walkable' | 'nofollow' | 'text'> & { stylesheet?: boolean };

/**
 * Another mention of a link already found: a page link beats a resource (walkable wins, with its element and text),
 * it is followed unless every mention says nofollow, and the first text found stays otherwise.
 */
function mergeMention(prev: Mention, mention: Mention): void {
  if (mention.walkable && !prev.walkable) {
    prev.walkable = true;
    prev.element = mention.element;
    if (mention.text) prev.text = mention.text;
  }
  if (!mention.nofollow) prev.nofollow = false;
  if (!prev.text) prev.text = mention.text;
  if (mention.stylesheet) prev.stylesheet = true;
}

/** Whitespace collapsed, cut at LINK_TEXT_MAX characters (not inside a surrogate pair). */
export function linkText(s: string): string {
  const text = collapseWhitespace(s);
  if (text.length <= LINK_TEXT_MAX) return text;
  const code = text.charCodeAt(LINK_TEXT_MAX - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? LINK_TEXT_MAX - 1 : LINK_TEXT_MAX);
}

/** A URL and its fragment (without '#', '' when none) of a link resolved against base; null when it is never fetched. */
function withFragment(raw: string, base: string): { url: string; fragment: string } | null {
  const hashAt = raw.indexOf('#');
  if (hashAt < 0) {
    const url = normalizeUrl(raw, base);
    return url ? { url, fragment: '' } : null;
  }
  // "#" alone goes nowhere; "#x" alone is the document the base names.
  if (hashAt === 0 && raw.length === 1) return null;
  const url = normalizeUrl(hashAt === 0 ? base : raw.slice(0, hashAt), base);
  if (!url) return null;
  let fragment = '';
  try {
    fragment = new URL(raw, base).hash.slice(1);
  } catch {
    // unparsable: no fragment to check
  }
  return { url, fragment };
}

/** The links of one page, at most maxLinks distinct hrefs. */
export class LinkCollector {
  private readonly raw: RawLink[] = [];
  private readonly byHref = new Map<string, RawLink>();

  constructor(private readonly maxLinks: number) {}

  /** Records a link (or merges it into an earlier mention of the same href); returns its record. */
  add(
    raw: string | undefined,
    element: string,
    walkable: boolean,
    nofollow = false,
    text = '',
    stylesheet = false,
  ): RawLink | null {
    if (raw === undefined) return null;
    const href = raw.trim();
    if (!href) return null;
    const prev = this.byHref.get(href);
    if (prev) {
      mergeMention(prev, { element, walkable, nofollow, text, stylesheet });
      return prev;
    }
    if (this.raw.length >= this.maxLinks) return null;
    const link: RawLink = { raw: href, element, walkable, nofollow, text, stylesheet };
    this.byHref.set(href, link);
    this.raw.push(link);
    return link;
  }

  /** The url() and @import references of CSS (a <style> block or a style attribute). */
  addCss(css: string): void {
    for (const link of cssLinks(css, this.maxLinks)) this.add(link.raw, 'css', false, false, '', link.import);
  }

  /** The links resolved against baseUrl, one per URL (per URL and fragment where fragments are checked). */
  resolve(baseUrl: string, fragments: boolean): ExtractedLink[] {
    const links: ExtractedLink[] = [];
    const seen = new Map<string, ExtractedLink>();
    for (const raw of this.raw) {
      // Fragments matter only on links to documents (check_fragments); elsewhere a URL is its page.
      const split =
        fragments && (raw.element === 'a' || raw.element === 'area') ? withFragment(raw.raw, baseUrl) : null;
      const url = split ? split.url : normalizeUrl(raw.raw, baseUrl);
      if (!url) continue;
      const key = split?.fragment ? `${url}#${split.fragment}` : url;
      const prev = seen.get(key);
      if (prev) {
        // The same URL by another href (relative, absolute…).
        mergeMention(prev, raw);
        continue;
      }
      const link: ExtractedLink = {
        url,
        element: raw.element,
        walkable: raw.walkable,
        nofollow: raw.nofollow,
        text: raw.text,
      };
      if (raw.stylesheet) link.stylesheet = true;
      if (split?.fragment) link.fragment = split.fragment;
      seen.set(key, link);
      links.push(link);
    }
    return links;
  }
}
