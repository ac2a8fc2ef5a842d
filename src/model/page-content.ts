// A stored page as an assistant reads it: its Markdown and outline (what the crawl keeps of each HTML page), the
// rules that cut it into sections and chunks, and which section of a page best answers a search. Pure functions,
// shared by the store, the backend, the abilities and the MCP resources.

/** One heading of a page: where it starts in the page's Markdown, and the anchor that reaches it. */
export interface OutlineEntry {
  level: number;
  text: string;
  /** The heading's id on the page (or the id of the section it opens); a slug of its text when the page gives none. */
  anchor: string;
  /** Offset of the heading's line in the Markdown. */
  start: number;
}

/** What the store keeps of one page for reading. */
export interface StoredPageContent {
  url: string;
  title: string;
  lang: string | null;
  lastCrawled: string;
  /** Indexed and shown in search: what a caller who may only search may read. */
  inSearch: boolean;
  markdown: string;
  outline: OutlineEntry[];
}

/** A page of a listing of stored pages. */
export interface StoredPageSummary {
  url: string;
  title: string;
  lastCrawled: string;
  inSearch: boolean;
}

/** Where one page's section starts and ends in its Markdown: from its heading to the next heading of its level or above. */
export function sectionRange(
  outline: readonly OutlineEntry[],
  markdown: string,
  anchor: string,
): [number, number] | null {
  const wanted = anchor.startsWith('#') ? anchor.slice(1) : anchor;
  const i = outline.findIndex((e) => e.anchor === wanted);
  if (i < 0) return null;
  const entry = outline[i]!;
  const next = outline.slice(i + 1).find((e) => e.level <= entry.level);
  return [entry.start, next ? next.start : markdown.length];
}

/** One chunk of a text: `maxLength` characters from `startIndex`, and where the next starts (null at the end). */
export function chunkOf(
  text: string,
  startIndex: number,
  maxLength: number,
): { text: string; nextStartIndex: number | null } {
  if (startIndex >= text.length) return { text: '', nextStartIndex: null };
  let end = Math.min(text.length, startIndex + maxLength);
  // A chunk never ends between the two halves of a surrogate pair (the next chunk would start with half a character).
  if (end < text.length && end > startIndex + 1 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  return { text: text.slice(startIndex, end), nextStartIndex: end < text.length ? end : null };
}

/** The words of a query and of a hit's highlighted matches, as section matching compares them (lower case, 2+ characters). */
export function matchTerms(terms: string, highlight = ''): string[] {
  const marked = [...highlight.matchAll(/<em>(.*?)<\/em>/g)].map((m) => m[1]!);
  const words = [terms, ...marked]
    .join(' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((w) => w.length >= 2);
  return [...new Set(words)];
}

/** A word matches its own inflections: the first characters of it, as a rough stem. */
function stemOf(term: string): string {
  return term.length <= 4 ? term : term.slice(0, Math.max(4, term.length - 3));
}

/**
 * The section of a page that best matches a search: the heading whose own text (up to the next heading) holds the
 * most distinct terms, then the most matches, its heading's words counting double; the first on a tie. null when
 * the page has no headings or no section holds a term.
 */
export function bestSection(
  outline: readonly OutlineEntry[],
  markdown: string,
  terms: readonly string[],
): OutlineEntry | null {
  if (!outline.length || !terms.length) return null;
  const stems = terms.map(stemOf);
  let best: OutlineEntry | null = null;
  let bestScore = 0;
  outline.forEach((entry, i) => {
    const end = i + 1 < outline.length ? outline[i + 1]!.start : markdown.length;
    const body = markdown.slice(entry.start, end).toLowerCase();
    const heading = entry.text.toLowerCase();
    let distinct = 0;
    let hits = 0;
    for (const stem of stems) {
      const inHeading = heading.includes(stem);
      let n = 0;
      for (let at = body.indexOf(stem); at >= 0 && n < 20; at = body.indexOf(stem, at + stem.length)) n++;
      if (n || inHeading) distinct++;
      hits += n + (inHeading ? 2 : 0);
    }
    const score = distinct * 1000 + hits;
    if (distinct > 0 && score > bestScore) {
      best = entry;
      bestScore = score;
    }
  });
  return best;
}
