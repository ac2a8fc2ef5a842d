// The `rate_limits` config section and the decisions of the request rate limit: which group a request counts in,
// the fixed window it falls in, and whether a count is over its limit (with the Retry-After to send).
import { z } from 'zod';

/** What a request counts against: public search (the console's too), MCP, or the rest of /v1, the ability routes and the console's forms. */
export const RATE_GROUPS = ['search', 'mcp', 'api'] as const;
export type RateGroup = (typeof RATE_GROUPS)[number];

const WINDOW_RULE = 'must be a window like "10s", "1m" or "1h" (1 second to 1 hour)';
const WINDOW_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/** "10s", "1m", "1h" → milliseconds; null when it is not such a window, or is shorter than 1 s or longer than 1 h. */
export function parseWindow(s: string): number | null {
  const m = /^\s*(\d{1,7})\s*([smh])\s*$/.exec(s);
  if (!m) return null;
  const ms = Number(m[1]) * WINDOW_UNITS_MS[m[2]!]!;
  return ms >= 1000 && ms <= 3_600_000 ? ms : null;
}

const perWindow = (group: string) =>
  z
    .number({
      error: `must be the number of ${group} requests one client may make per window (a whole number from 1 to 1000000), or null for no limit`,
    })
    .int({ error: 'must be a whole number from 1 to 1000000, or null for no limit' })
    .min(1, { error: 'must be a whole number from 1 to 1000000, or null for no limit' })
    .max(1_000_000, { error: 'must be a whole number from 1 to 1000000, or null for no limit' })
    .nullable();

/**
 * Requests one client (the user of a valid user token, OAuth token or console session; a valid API key; else its
 * address) may make per window, per group; over it, 429 with Retry-After. enabled false: no limit at all.
 */
export const RateLimitsSchema = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }).default(true),
    window: z
      .string({ error: WINDOW_RULE })
      .refine((s) => parseWindow(s) !== null, { error: WINDOW_RULE })
      .default('1m'),
    /** POST /v1/projects/<token>/search and the svc/search ability route: public, so the tightest. */
    search: perWindow('search').default(120),
    /** POST /mcp (every tool, search included). */
    mcp: perWindow('MCP').default(300),
    /** Every other /v1 and ability route. */
    api: perWindow('API').default(600),
  })
  .strict();

export type RateLimitsConfig = z.infer<typeof RateLimitsSchema>;

/** The start (ms since the epoch) of the fixed window `now` falls in: windows are aligned, so every process agrees. */
export function windowStart(now: number, windowMs: number): number {
  return now - (now % windowMs);
}

/** Where the counts are kept (src/store/rate-limits.ts: in memory, or in the database). */
export interface RateCounter {
  /** Adds one request of `key` to the window that started at `start` (ms); the window's count with it. */
  hit(key: string, start: number): Promise<number>;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** The `hits`-th request of the window that started at `start`: allowed up to `limit`; else when to come back (≥ 1 s). */
export function decide(hits: number, limit: number, start: number, windowMs: number, now: number): RateDecision {
  if (hits <= limit) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) };
}

/**
 * The group of a request by its method and path, or null for what is never limited here (/healthz, OAuth, anything
 * else). `abilitiesRoot` is `<rest_root>/abilities/v1`.
 */
export function rateGroupOf(method: string, path: string, abilitiesRoot: string): RateGroup | null {
  if (path === '/mcp') return method === 'POST' ? 'mcp' : null;
  // The console: its search page runs the public search; its forms are API calls by another door.
  if (/^\/console\/p\/[^/]+\/search\/?$/.test(path)) return 'search';
  if (path.startsWith('/console/')) return method === 'POST' ? 'api' : null;
  if (path === '/v1' || path.startsWith('/v1/'))
    return /^\/v1\/projects\/[^/]+\/search\/?$/.test(path) ? 'search' : 'api';
  if (path === abilitiesRoot || path.startsWith(`${abilitiesRoot}/`)) {
    let tail = path.slice(abilitiesRoot.length);
    try {
      tail = decodeURIComponent(tail);
    } catch {
      // Not a route the handler answers with more than a 404: counted as API.
    }
    return /^\/abilities\/svc\/search\/run\/?$/.test(tail) ? 'search' : 'api';
  }
  return null;
}
