// The request rate limit of `svc serve`: the first handler of the chain, so a client over its limit costs one count
// and gets 429 with Retry-After before any route reads its body or looks anything up. /healthz is answered before
// every handler and OAuth's routes are not counted here (failed sign-ins have their own limit).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../lib/log.js';
import {
  decide,
  parseWindow,
  rateGroupOf,
  windowStart,
  type RateCounter,
  type RateGroup,
  type RateLimitsConfig,
} from '../model/rate-limits.js';
import { observe } from '../model/observations.js';
import { bearerToken, MCP_PATH, sendJson, sendRpcError, type HttpHandler } from './io.js';

export interface RateLimitOptions {
  limits: RateLimitsConfig;
  counter: RateCounter;
  /** `<rest_root>/abilities/v1`: the ability routes. */
  abilitiesRoot: string;
  /**
   * Who a bearer token names, as a counter key, or null when it is valid for nothing here. Only a valid token gets a
   * count of its own: a made-up one counts on the address, so new tokens buy no new requests.
   */
  tokenKey(token: string): Promise<string | null>;
  /** Who a console session (its cookie) names, as a counter key, or null when the request carries no live one. */
  sessionKey?(req: IncomingMessage): Promise<string | null>;
  logger: Logger;
  /** Clock (ms); tests move it. */
  now?: () => number;
}

/** The client address, an IPv4 client over an IPv6 socket as its IPv4 address. */
function clientAddress(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? 'unknown';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice('::ffff:'.length) : a;
}

/** The 429 in the error shape of the surface the request came to. */
function refuse(res: ServerResponse, path: string, message: string, retryAfterSeconds: number): void {
  const headers = { 'retry-after': String(retryAfterSeconds) };
  if (path === MCP_PATH) sendRpcError(res, 429, `Too many requests: ${message}`, headers);
  else if (path.startsWith('/console/')) {
    res.writeHead(429, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
    res.end(`Too many requests: ${message}`);
  } else if (path === '/v1' || path.startsWith('/v1/'))
    sendJson(res, 429, { error: { code: 'rate_limited', message } }, headers);
  else sendJson(res, 429, { code: 'rest_too_many_requests', message, data: { status: 429 } }, headers);
}

const GROUP_NAMES: Record<RateGroup, string> = { search: 'search', mcp: 'MCP', api: 'API' };

export function createRateLimitHandler(opts: RateLimitOptions): HttpHandler {
  const { limits, counter } = opts;
  if (!limits.enabled) return async () => false;
  const windowMs = parseWindow(limits.window)!;
  const now = opts.now ?? Date.now;

  async function clientKey(req: IncomingMessage): Promise<string> {
    const token = bearerToken(req);
    const byToken = token ? await opts.tokenKey(token) : null;
    const bySession = byToken ?? (opts.sessionKey ? await opts.sessionKey(req) : null);
    return bySession ?? `addr:${clientAddress(req)}`;
  }

  return async (req, res, url) => {
    const group = rateGroupOf(req.method ?? 'GET', url.pathname, opts.abilitiesRoot);
    const limit = group && limits[group];
    if (!group || !limit) return false;
    const t = now();
    const start = windowStart(t, windowMs);
    let hits: number;
    try {
      hits = await counter.hit(`${group}:${await clientKey(req)}`, start);
    } catch (err) {
      // The database that keeps the counts is out of reach: the route itself will say so, or work without it.
      opts.logger.warn({ err, path: url.pathname }, 'rate limit: the count could not be kept; request let through');
      return false;
    }
    const decision = decide(hits, limit, start, windowMs, t);
    if (decision.allowed) return false;
    req.resume();
    observe('rateLimited', { group });
    const message = `at most ${limit} ${GROUP_NAMES[group]} requests per ${limits.window} from one client (its user or API key, else its address): try again in ${decision.retryAfterSeconds} s`;
    refuse(res, url.pathname, message, decision.retryAfterSeconds);
    return true;
  };
}
