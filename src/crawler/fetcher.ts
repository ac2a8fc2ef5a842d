// The one way the crawler talks HTTP: one undici Agent (keep-alive) per crawl, per-host politeness, a time
// limit covering headers and body, redirects followed by hand with every hop recorded, and "slow down" answers
// (429, 503 + Retry-After) waited out and retried a bounded number of times. How a failure is named lives in
// fetch-errors.ts, the connect-time address guard in guarded-connector.ts, the capped body read in response-body.ts.
import type { IncomingHttpHeaders } from 'node:http';
import { Agent } from '../lib/undici-agent.js';
import { retryDelayMs, type RetryPolicy } from '../model/link-rules.js';
import type { AddressPolicy } from './address-policy.js';
import { blockMarker, type FailureKind, type FetchSummary, type Hop } from './classify.js';
import { describeError, errorCode, TimeoutError } from './fetch-errors.js';
import { guardedConnector, type HostLookup } from './guarded-connector.js';
import { AbortError, HostLimiter, type HostGate, type HostLimits } from './host-limiter.js';
import { type BodySink, DEFAULT_MAX_BODY_BYTES, discard, pump } from './response-body.js';

export const DEFAULT_USER_AGENT = 'svc-crawler/0.1 (+https://github.com/svc-mcp/svc)';

export interface FetcherOptions {
  userAgent?: string;
  /** Consulted at connect time for every address a host name resolves to; null/undefined: no restriction. */
  addressPolicy?: AddressPolicy | null;
  /** Longest redirect chain followed (hops). */
  maxRedirects?: number;
  /** Retries after a "slow down" answer. */
  maxRetries?: number;
  /** Longest single wait a Retry-After may impose. */
  maxRetryWaitMs?: number;
  /** Ceiling for the request spacing repeated "slow down" answers build up per host. */
  maxSlowDownDelayMs?: number;
  /** Limits for hosts that were not configured (external links). */
  defaultLimits?: HostLimits;
  connectTimeoutMs?: number;
  /** Name resolution for the address policy's connector (default: the system's, node:dns lookup). */
  lookup?: HostLookup;
}

export interface HostSettings extends HostLimits {
  /** Sent on every request to this host (target request_headers); never to other hosts. */
  headers?: Record<string, string>;
}

export interface ResponseInfo {
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  contentType: string | null;
}

export interface FetchOptions {
  method?: 'GET' | 'HEAD';
  /** For headers and body together, per request. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Decoded bytes handed to the sink at most. */
  maxBodyBytes?: number;
  /** Sent with the request of `url` itself (and its retries), never with a redirect hop: e.g. conditional headers. */
  headers?: Record<string, string>;
  /** Called with the final (non-redirect) answer; return a sink to read its body, or nothing to skip it. */
  onResponse?: (res: ResponseInfo) => BodySink | undefined;
  /**
   * Whether a redirect's next URL is one the caller has already (a page its crawl fetched or will fetch): then the
   * chain ends there without asking for it, as a redirect that leads to it (`known` in the result).
   */
  known?: (url: string) => boolean | Promise<boolean>;
  /** Timeouts, resets and 5xx answers tried again (per URL of the chain), with backoff; none when absent. */
  retry?: RetryPolicy;
}

export type FetchResult = FetchSummary & {
  headers: IncomingHttpHeaders;
  contentType: string | null;
  /** The body was cut at maxBodyBytes. */
  truncated: boolean;
  /** Requests this fetch made (hops and retries included). */
  requests: number;
  /** Of `requests`: those sent again after a timeout, a reset or a 5xx (FetchOptions.retry). */
  retries: number;
};

/** Failures that may pass when tried again (FetchOptions.retry). */
function mayPass(failure: FailureKind): boolean {
  return failure === 'timeout' || failure === 'reset';
}

/** Waits ms (true), or until the signal aborts (false). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A response header's (first) value. */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Seconds or an HTTP date → milliseconds to wait; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

const NO_HEADERS: IncomingHttpHeaders = {};

export class Fetcher {
  readonly agent: Agent;
  private readonly limiters = new Map<string, HostGate>();
  private readonly hostHeaders = new Map<string, Record<string, string>>();
  private readonly userAgent: string;
  private readonly maxRedirects: number;
  private readonly maxRetries: number;
  private readonly maxRetryWaitMs: number;
  private readonly defaultLimits: HostLimits;
  private readonly maxSlowDownDelayMs: number | undefined;
  /**
   * Host names that do not exist (ENOTFOUND), with the failure's detail: their other URLs fail at once for the rest
   * of the crawl instead of each waiting for the resolver (hundreds of links to one dead domain are common).
   */
  private readonly unresolved = new Map<string, string>();
  /** Requests sent (every hop and retry). */
  requests = 0;
  /** Of them, requests sent again after a timeout, a reset or a 5xx (FetchOptions.retry). */
  retries = 0;

  constructor(opts: FetcherOptions = {}) {
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.maxRedirects = opts.maxRedirects ?? 10;
    this.maxRetries = opts.maxRetries ?? 3;
    this.maxRetryWaitMs = opts.maxRetryWaitMs ?? 30_000;
    this.maxSlowDownDelayMs = opts.maxSlowDownDelayMs;
    this.defaultLimits = {
      concurrency: 4,
      delayMs: 0,
      maxSlowDownDelayMs: opts.maxSlowDownDelayMs,
      ...opts.defaultLimits,
    };
    const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      connect: opts.addressPolicy
        ? guardedConnector(opts.addressPolicy, connectTimeoutMs, opts.lookup)
        : { timeout: connectTimeoutMs },
    });
  }

  /**
   * Politeness and headers for one host[:port] (a crawl target). `gate` makes the host's politeness one shared with
   * other workers (built from the same limits); without it this process's own limiter holds it.
   */
  configureHost(host: string, settings: HostSettings, gate?: (limits: HostLimits) => HostGate): void {
    const limits = { maxSlowDownDelayMs: this.maxSlowDownDelayMs, ...settings };
    this.limiters.set(host, gate ? gate(limits) : new HostLimiter(limits));
    if (settings.headers && Object.keys(settings.headers).length) this.hostHeaders.set(host, settings.headers);
  }

  limiter(host: string): HostGate {
    let l = this.limiters.get(host);
    if (!l) {
      l = new HostLimiter(this.defaultLimits);
      this.limiters.set(host, l);
    }
    return l;
  }

  /** Fetches url, following redirects by hand. Never throws: every problem is a failure in the result. */
  async fetch(url: string, opts: FetchOptions): Promise<FetchResult> {
    const hops: Hop[] = [];
    const visited = new Set<string>([url]);
    let current = url;
    let requests = 0;
    let retries = 0;
    // A failure at the URL reached so far, with the status it answered (0 when it did not).
    const fail = (failure: FailureKind, detail: string, status: number | undefined): FetchResult => ({
      ok: false,
      url,
      finalUrl: current,
      failure,
      detail,
      hops,
      status,
      headers: NO_HEADERS,
      contentType: null,
      truncated: false,
      requests,
      retries,
    });
    // An answer at the URL reached so far: the final one, or a redirect to a URL the caller has (known).
    const reached = (
      status: number,
      rest: Pick<FetchResult, 'headers' | 'contentType' | 'truncated'> & { known?: true },
    ): FetchResult => ({ ok: true, url, finalUrl: current, status, hops, ...rest, requests, retries });
    for (;;) {
      const step = await this.requestOnce(current, opts, current === url ? opts.headers : undefined);
      requests += step.requests;
      retries += step.retries;
      if (step.kind === 'failure') return fail(step.failure, step.detail, step.status);
      if (step.kind === 'final')
        return reached(step.status, {
          headers: step.headers,
          contentType: step.contentType,
          truncated: step.truncated,
        });
      let next: URL;
      try {
        next = new URL(step.location, current);
      } catch {
        next = new URL('invalid:');
      }
      hops.push({ url: current, status: step.status, location: step.location });
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        return fail('bad_redirect', step.location.slice(0, 200), step.status);
      next.hash = '';
      const nextUrl = next.href;
      if (visited.has(nextUrl)) return fail('redirect_loop', nextUrl, step.status);
      if (hops.length >= this.maxRedirects)
        return fail('too_many_redirects', `more than ${this.maxRedirects} hops`, step.status);
      visited.add(nextUrl);
      current = nextUrl;
      if (opts.known && (await opts.known(nextUrl)))
        return reached(step.status, { headers: NO_HEADERS, contentType: null, truncated: false, known: true });
    }
  }

  /**
   * A link check: HEAD, falling back to GET (body not read) when the server does not do HEAD (405, 501)
   * or the HEAD failed in a way a GET might not.
   */
  async check(
    url: string,
    opts: { timeoutMs: number; signal?: AbortSignal; retry?: RetryPolicy },
  ): Promise<FetchResult> {
    const head = await this.fetch(url, { ...opts, method: 'HEAD' });
    const again = head.ok
      ? head.status === 405 || head.status === 501
      : head.failure === 'reset' || head.failure === 'timeout' || head.failure === 'network';
    if (!again) return head;
    // The GET has what the HEAD left of the link's retries: `count` bounds them per link, not per method.
    const retry = opts.retry && { ...opts.retry, count: Math.max(0, opts.retry.count - head.retries) };
    const get = await this.fetch(url, { ...opts, method: 'GET', retry });
    return { ...get, requests: get.requests + head.requests, retries: get.retries + head.retries };
  }

  async close(): Promise<void> {
    for (const gate of this.limiters.values()) gate.close?.();
    await this.agent.close().catch(() => {});
  }

  private async requestOnce(
    url: string,
    opts: FetchOptions,
    extraHeaders?: Record<string, string>,
  ): Promise<
    | { kind: 'failure'; failure: FailureKind; detail: string; status?: number; requests: number; retries: number }
    | { kind: 'redirect'; status: number; location: string; requests: number; retries: number }
    | {
        kind: 'final';
        status: number;
        headers: IncomingHttpHeaders;
        contentType: string | null;
        truncated: boolean;
        requests: number;
        retries: number;
      }
  > {
    const u = new URL(url);
    const limiter = this.limiter(u.host);
    const method = opts.method ?? 'GET';
    const headers: Record<string, string> = {
      'user-agent': this.userAgent,
      accept: method === 'HEAD' ? '*/*' : 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'accept-encoding': 'gzip, deflate, br',
      ...this.hostHeaders.get(u.host),
      ...extraHeaders,
    };
    let requests = 0;
    let retries = 0;
    let slowDowns = 0;
    const retry = opts.retry;
    // A failure that may pass (a timeout, a reset, a 5xx): waits and returns true when it is to be tried again.
    const tryAgain = async (retryAfterMs?: number): Promise<boolean> => {
      if (!retry || retries >= retry.count || opts.signal?.aborted) return false;
      const wait = retryDelayMs(retry, retries, retryAfterMs, this.maxRetryWaitMs);
      retries++;
      this.retries++;
      return sleep(wait, opts.signal);
    };
    for (;;) {
      let release: () => void;
      try {
        release = await limiter.acquire(opts.signal);
      } catch {
        return { kind: 'failure', failure: 'aborted', detail: '', requests, retries };
      }
      // Looked at after the wait: requests queued behind the one that found the name missing need not ask again.
      const unresolved = this.unresolved.get(u.hostname);
      if (unresolved !== undefined) {
        release();
        return { kind: 'failure', failure: 'dns', detail: unresolved, requests, retries };
      }
      // One controller per request: the time limit covers headers and body; the crawl's signal stops it too.
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(new TimeoutError('timeout')), opts.timeoutMs);
      const onParentAbort = () => ac.abort(new AbortError());
      opts.signal?.addEventListener('abort', onParentAbort, { once: true });
      let cleaned = false;
      const cleanup = () => {
        if (cleaned) return;
        cleaned = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onParentAbort);
        release();
      };
      requests++;
      this.requests++;
      let res: Awaited<ReturnType<Agent['request']>>;
      try {
        res = await this.agent.request({
          origin: u.origin,
          path: `${u.pathname}${u.search}`,
          method,
          headers,
          signal: ac.signal,
          headersTimeout: opts.timeoutMs,
          bodyTimeout: opts.timeoutMs,
        });
      } catch (err) {
        cleanup();
        const reason = ac.signal.aborted ? ac.signal.reason : err;
        const failure = describeError(reason, opts.timeoutMs);
        // Only a name that does not exist: a resolver that is slow or down now (EAI_AGAIN) may answer the next time.
        if (failure.failure === 'dns' && errorCode(reason) === 'ENOTFOUND')
          this.unresolved.set(u.hostname, failure.detail);
        if (mayPass(failure.failure) && (await tryAgain())) continue;
        return { kind: 'failure', ...failure, requests, retries };
      }
      const status = res.statusCode;
      const resHeaders = res.headers;
      let failed: { failure: FailureKind; detail: string; status: number };
      // A body already handed in part to the caller's sink cannot be read again from the start.
      let sunk = false;
      try {
        const retryAfter = parseRetryAfter(header(resHeaders, 'retry-after'));
        // A challenge page does not go away by waiting: it is the answer.
        if ((status === 429 || (status === 503 && retryAfter !== undefined)) && !blockMarker(status, resHeaders)) {
          await discard(res.body);
          if (slowDowns >= this.maxRetries)
            return {
              kind: 'failure',
              failure: 'rate_limited',
              detail: `${status} after ${slowDowns + 1} tries`,
              status,
              requests,
              retries,
            };
          const wait = Math.min(this.maxRetryWaitMs, retryAfter ?? 1000 * 2 ** slowDowns);
          slowDowns++;
          limiter.slowDown(wait);
          continue; // the limiter holds every request to this host until the wait is over
        }
        const location = header(resHeaders, 'location');
        if (status >= 300 && status < 400 && status !== 304 && location) {
          await discard(res.body);
          return { kind: 'redirect', status, location, requests, retries };
        }
        if (status >= 500 && retry && retries < retry.count && !opts.signal?.aborted) {
          await discard(res.body);
          cleanup();
          if (await tryAgain(retryAfter)) continue;
          return { kind: 'failure', failure: 'aborted', detail: '', status, requests, retries };
        }
        const contentType = header(resHeaders, 'content-type') ?? null;
        const sink =
          method === 'HEAD'
            ? undefined
            : opts.onResponse?.({ url, status, headers: resHeaders, contentType }) || undefined;
        let truncated = false;
        if (sink) {
          sunk = true;
          truncated = await pump(
            res.body,
            header(resHeaders, 'content-encoding'),
            sink,
            opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
          );
        } else {
          await discard(res.body);
        }
        return { kind: 'final', status, headers: resHeaders, contentType, truncated, requests, retries };
      } catch (err) {
        res.body.destroy();
        const reason = ac.signal.aborted ? ac.signal.reason : err;
        failed = { ...describeError(reason, opts.timeoutMs), status };
      } finally {
        cleanup();
      }
      // A body that broke off or timed out: tried again like a request that did, once the request is cleaned up.
      if (!sunk && mayPass(failed.failure) && (await tryAgain())) continue;
      return { kind: 'failure', ...failed, requests, retries };
    }
  }
}
