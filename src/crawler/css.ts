// Links in CSS: url() and @import, found with css-tree's tokenizer (CSS Syntax Level 3), so comments, strings,
// escapes and unquoted URLs are read as a browser reads them. Pure: no I/O.
import { tokenize, tokenTypes as T } from 'css-tree/tokenizer';
import { string as cssString, url as cssUrl } from 'css-tree/utils';
import type { ExtractedLink } from '../model/crawl-writes.js';
import { normalizeUrl } from './urls.js';

export interface CssLink {
  /** As written (escapes resolved), not yet resolved against a base. */
  raw: string;
  /** From an @import: another stylesheet. */
  import: boolean;
}

/** Functions whose first argument, when a string, is a URL: url("…") and src("…"). */
const URL_FUNCTIONS = /^(?:url|src)\($/i;

/** The url() and @import references of a stylesheet, a <style> block or a style="" attribute, in order. */
export function cssLinks(css: string, max = 10_000): CssLink[] {
  const out: CssLink[] = [];
  // After @import, until its URL or anything else.
  let importing = false;
  // After url( or src(, until its string or anything else.
  let urlFunction = false;
  const push = (raw: string) => {
    if (out.length < max && raw.trim()) out.push({ raw: raw.trim(), import: importing });
    importing = false;
    urlFunction = false;
  };
  tokenize(css, (type, start, end) => {
    switch (type) {
      case T.WhiteSpace:
      case T.Comment:
        return;
      case T.AtKeyword:
        importing = css.slice(start + 1, end).toLowerCase() === 'import';
        urlFunction = false;
        return;
      case T.Url:
        return push(cssUrl.decode(css.slice(start, end)));
      case T.Function:
        urlFunction = URL_FUNCTIONS.test(css.slice(start, end));
        // `@import url("…")` stays an import.
        if (!urlFunction) importing = false;
        return;
      case T.String:
        if (urlFunction || importing) return push(cssString.decode(css.slice(start, end)));
        return;
      default:
        importing = false;
        urlFunction = false;
    }
  });
  return out;
}

/** The links of a stylesheet document, resolved against its URL (element `css`; @imports are stylesheets). */
export function stylesheetLinks(css: string, url: string, max = 10_000): ExtractedLink[] {
  const out: ExtractedLink[] = [];
  const seen = new Set<string>();
  for (const l of cssLinks(css, max)) {
    const u = normalizeUrl(l.raw, url);
    if (!u || seen.has(u)) continue;
    seen.add(u);
    out.push({
      url: u,
      element: 'css',
      walkable: false,
      nofollow: false,
      text: '',
      ...(l.import ? { stylesheet: true } : {}),
    });
  }
  return out;
}
