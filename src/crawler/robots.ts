// robots.txt (robots-parser) with its Sitemap: lines, and the robots directives of <meta name="robots">
// and X-Robots-Tag. Parsing is pure; loadRobots is the one fetch.
import robotsParserModule from 'robots-parser';
import type { Fetcher } from './fetcher.js';

/** The product token robots.txt groups and robots meta names are matched against. */
// robots-parser is CommonJS (module.exports = fn) while its types claim an ES default export.
const robotsParser = ((robotsParserModule as unknown as { default?: unknown }).default ??
  robotsParserModule) as unknown as typeof robotsParserModule.default;

export const ROBOTS_AGENT = 'svc-crawler';

export interface RobotsDirectives {
  noindex: boolean;
  nofollow: boolean;
}

const DIRECTIVE_NAMES = new Set([
  'all',
  'none',
  'noindex',
  'nofollow',
  'index',
  'follow',
  'noarchive',
  'nosnippet',
  'notranslate',
  'noimageindex',
  'nocache',
  'max-snippet',
  'max-image-preview',
  'max-video-preview',
  'unavailable_after',
  'indexifembedded',
]);

/**
 * "noindex, nofollow", "none", or the X-Robots-Tag form with an agent prefix ("googlebot: noindex"), which
 * applies only when the agent is ours.
 */
export function parseRobotsDirectives(value: string, agent = ROBOTS_AGENT): RobotsDirectives {
  const out: RobotsDirectives = { noindex: false, nofollow: false };
  let applies = true;
  for (const rawPart of value.split(',')) {
    let part = rawPart.trim().toLowerCase();
    const colon = part.indexOf(':');
    if (colon > 0) {
      const head = part.slice(0, colon).trim();
      if (!DIRECTIVE_NAMES.has(head)) {
        // "<agent>: directives" starts a group that lasts until the next agent prefix.
        applies = head === agent.toLowerCase() || head === '*';
        part = part.slice(colon + 1).trim();
      }
    }
    if (!applies) continue;
    if (part === 'noindex' || part === 'none') out.noindex = true;
    if (part === 'nofollow' || part === 'none') out.nofollow = true;
  }
  return out;
}

/** Every X-Robots-Tag header of a response, combined. */
export function xRobotsTag(value: string | string[] | undefined, agent = ROBOTS_AGENT): RobotsDirectives {
  const out: RobotsDirectives = { noindex: false, nofollow: false };
  for (const v of Array.isArray(value) ? value : value ? [value] : []) {
    const d = parseRobotsDirectives(v, agent);
    out.noindex ||= d.noindex;
    out.nofollow ||= d.nofollow;
  }
  return out;
}

export interface RobotsRules {
  /** 'ok' (a robots.txt was read), 'missing' (4xx: no rules), 'unavailable' (5xx or no answer: no rules, logged). */
  status: 'ok' | 'missing' | 'unavailable';
  /** Absolute sitemap URLs from `Sitemap:` lines. */
  sitemaps: string[];
  /** Crawl-delay for our agent (or *), in ms. */
  crawlDelayMs: number | null;
  isAllowed(url: string): boolean;
}

export const ALLOW_ALL: RobotsRules = { status: 'missing', sitemaps: [], crawlDelayMs: null, isAllowed: () => true };

/** Pure: the rules of one robots.txt body. */
export function parseRobotsTxt(robotsUrl: string, body: string, agent = ROBOTS_AGENT): RobotsRules {
  const robots = robotsParser(robotsUrl, body);
  const sitemaps: string[] = [];
  for (const s of robots.getSitemaps()) {
    try {
      const u = new URL(s, robotsUrl);
      if (u.protocol === 'http:' || u.protocol === 'https:') sitemaps.push(u.href);
    } catch {
      // not a URL: ignored
    }
  }
  const delay = robots.getCrawlDelay(agent);
  return {
    status: 'ok',
    sitemaps: [...new Set(sitemaps)],
    crawlDelayMs: typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? Math.round(delay * 1000) : null,
    // undefined means "another origin": robots.txt rules are per origin, so nothing here forbids it.
    isAllowed: (url) => robots.isAllowed(url, agent) !== false,
  };
}

const MAX_ROBOTS_BYTES = 512 * 1024;

/** Fetches and parses `<origin>/robots.txt`. A 4xx means no rules; a 5xx or no answer means no rules too (logged by the caller). */
export async function loadRobots(
  fetcher: Fetcher,
  origin: string,
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<RobotsRules> {
  const robotsUrl = `${origin}/robots.txt`;
  const chunks: Buffer[] = [];
  let html = false;
  const res = await fetcher.fetch(robotsUrl, {
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    maxBodyBytes: MAX_ROBOTS_BYTES,
    onResponse: (r) => {
      if (r.status < 200 || r.status >= 300) return undefined;
      // A site that answers every path with its HTML shell has no robots.txt.
      html = /text\/html/i.test(r.contentType ?? '');
      return { write: (c) => chunks.push(c), end: () => {} };
    },
  });
  if (!res.ok) return { ...ALLOW_ALL, status: 'unavailable' };
  if (res.status >= 500) return { ...ALLOW_ALL, status: 'unavailable' };
  if (res.status < 200 || res.status >= 300 || html) return ALLOW_ALL;
  // Rules found through a redirect still apply to this origin (RFC 9309 §2.3.1.2).
  return parseRobotsTxt(robotsUrl, Buffer.concat(chunks).toString('utf8'));
}
