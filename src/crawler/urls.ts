// URL normalisation and matching: one canonical string per page, so "seen once" means once.
// Pure functions; nothing here does I/O.

/** Schemes a link can carry that are never fetched (and never reported). */
const IGNORED_SCHEME =
  /^(?:mailto|tel|javascript|data|about|blob|sms|fax|callto|geo|file|ftp|news|irc|urn|cid|mid|chrome|vbscript):/i;

export interface NormalizeOptions {
  /** Drop the query string (target setting walk_query_strings = false). */
  dropQuery?: boolean;
}

/**
 * Resolves `raw` against `base` and returns the canonical http(s) URL, or null for links that are never
 * fetched (mailto:, tel:, javascript:, data:, fragment-only, unparsable, other schemes).
 * Canonical: lower-case scheme and host, no default port, no fragment, "/" for an empty path.
 */
export function normalizeUrl(raw: string, base?: string | URL, opts: NormalizeOptions = {}): string | null {
  const s = raw.trim();
  if (!s || s.startsWith('#') || IGNORED_SCHEME.test(s)) return null;
  let url: URL;
  try {
    url = base === undefined ? new URL(s) : new URL(s, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!url.hostname) return null;
  // Cut on the serialized form rather than through the hash/search setters (each re-parses the URL): in it,
  // the first '#' starts the fragment and the first '?' the query, since neither can stand unescaped before.
  let href = url.href;
  const hashAt = href.indexOf('#');
  if (hashAt >= 0) href = href.slice(0, hashAt);
  const queryAt = href.indexOf('?');
  // An empty query ("?" alone) is dropped too.
  if (queryAt >= 0 && (opts.dropQuery || queryAt === href.length - 1)) href = href.slice(0, queryAt);
  return href;
}

/**
 * Whether a canonical URL (as normalizeUrl gives it) links to a PDF document (track_links = pdf): judged by the
 * path, since a link is tracked before it is fetched.
 */
export function isPdfUrl(url: string): boolean {
  // A canonical URL has no fragment, and its query starts at the first '?': the path is what comes before.
  const queryAt = url.indexOf('?');
  return (queryAt < 0 ? url : url.slice(0, queryAt)).toLowerCase().endsWith('.pdf');
}

export function compilePatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((p) => new RegExp(p));
}

export function matchesAny(url: string, patterns: readonly RegExp[]): boolean {
  for (const re of patterns) if (re.test(url)) return true;
  return false;
}

/**
 * The URLs of a srcset attribute ("a.png 1x, b.png 2x", "c.jpg 480w"), following the HTML parsing rules
 * closely enough that commas inside URLs (which are not followed by whitespace) survive.
 */
export function parseSrcset(value: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = value.length;
  const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
  while (i < n) {
    while (i < n && (isSpace(value[i]!) || value[i] === ',')) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(value[i]!)) i++;
    let url = value.slice(start, i);
    let endsCandidate = false;
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
      endsCandidate = true;
    }
    if (url) out.push(url);
    if (endsCandidate) continue;
    // Skip the descriptors up to the next comma outside parentheses.
    let depth = 0;
    while (i < n) {
      const c = value[i]!;
      if (c === '(') depth++;
      else if (c === ')') depth = Math.max(0, depth - 1);
      else if (c === ',' && depth === 0) {
        i++;
        break;
      }
      i++;
    }
  }
  return out;
}

/**
 * The longest URL a crawl keeps, in bytes. PostgreSQL's btree indexes refuse a key of more than about 2.7 kB (a
 * page's URL with its host in the report's index among them), which would fail a whole write batch; both stores
 * hold the same limit so a crawl's results do not depend on the store.
 */
export const MAX_URL_BYTES = 2048;

/** Why a URL is too long to keep (a sentence naming its length and the limit), or null when it is not. */
export function overlongUrl(url: string): string | null {
  const bytes = Buffer.byteLength(url);
  return bytes > MAX_URL_BYTES
    ? `not checked: the URL is ${bytes} bytes long, longer than the ${MAX_URL_BYTES} a crawl keeps`
    : null;
}

/** What stands for an overlong URL in the links and the report: its start, marked as cut (and short enough). */
export function overlongStandIn(url: string): string {
  return `${url.slice(0, 200)}…`;
}
