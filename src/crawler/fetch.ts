// The one way the crawler talks HTTP: one undici Agent (keep-alive) per crawl, per-host politeness, a time
// limit covering headers and body, capped (and gzip-bomb-safe) bodies, redirects followed by hand with every
// hop recorded, and "slow down" answers (429, 503 + Retry-After) waited out and retried a bounded number of times.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { Agent, buildConnector } from '../lib/undici-agent.js';
import { bareHost, type AddressPolicy } from './address-policy.js';
import { blockMarker, type FailureKind, type FetchSummary, type Hop } from './classify.js';
import { AbortError, HostLimiter, type HostGate, type HostLimits } from './host-limiter.js';

export const DEFAULT_USER_AGENT = 'svc-crawler/0.1 (+https://github.com/svc-mcp/svc)';
/** Decoded bytes kept of one page; the rest is cut off (a 50 MB page or an endless body stops here). */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

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

export type HostLookup = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

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

/** Receives the decoded body of the final answer, chunk by chunk. */
export interface BodySink {
  write(chunk: Buffer): void;
  end(): void;
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
}

export type FetchResult = FetchSummary & {
  headers: IncomingHttpHeaders;
  contentType: string | null;
  /** The body was cut at maxBodyBytes. */
  truncated: boolean;
  /** Requests this fetch made (hops and retries included). */
  requests: number;
};

class BlockedError extends Error {
  readonly code = 'SVC_ADDRESS_BLOCKED';
}

class TimeoutError extends Error {
  readonly code = 'SVC_TIMEOUT';
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

/** The system error code of a transport error (undici wraps some: in `errors` or `cause`). */
function errorCode(err: unknown): string {
  const e = err as { code?: string; errors?: { code?: string }[]; cause?: { code?: string } } | null;
  return e?.code ?? e?.errors?.find((x) => x?.code)?.code ?? e?.cause?.code ?? '';
}

/** Maps a transport error to a failure kind with a short detail. */
export function describeError(err: unknown, timeoutMs: number): { failure: FailureKind; detail: string } {
  const e = err as {
    code?: string;
    message?: string;
    errors?: { code?: string }[];
    cause?: { code?: string; message?: string };
  };
  if (err instanceof TimeoutError) return { failure: 'timeout', detail: `no complete answer within ${timeoutMs} ms` };
  if (err instanceof BlockedError) return { failure: 'blocked', detail: err.message };
  if (err instanceof AbortError) return { failure: 'aborted', detail: '' };
  const code = errorCode(err);
  switch (code) {
    case 'ECONNREFUSED':
      return { failure: 'refused', detail: '' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return { failure: 'dns', detail: '' };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return { failure: 'timeout', detail: `no complete answer within ${timeoutMs} ms` };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return { failure: 'reset', detail: '' };
    case 'EHOSTUNREACH':
      return { failure: 'network', detail: 'host unreachable' };
    case 'ENETUNREACH':
      return { failure: 'network', detail: 'network unreachable' };
    default:
      if (
        /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code) ||
        /certificate|TLS|SSL/i.test(e?.message ?? '')
      ) {
        return { failure: 'tls', detail: code || (e?.message ?? '') };
      }
      if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code.startsWith('ERR__'))
        return { failure: 'network', detail: 'the body could not be decoded' };
      return { failure: 'network', detail: code || (e?.message ?? String(err)).slice(0, 200) };
  }
}

/**
 * A connector that resolves the name itself, asks the policy about every address, and connects to the one it
 * checked. `tls`: more options of the TLS connection (a test's own CA, say).
 */
export function guardedConnector(
  policy: AddressPolicy,
  connectTimeoutMs: number,
  lookup: HostLookup = dnsLookup,
  tls: buildConnector.BuildOptions = {},
): buildConnector.connector {
  const base = buildConnector({ ...tls, timeout: connectTimeoutMs });
  return (opts, callback) => {
    const name = bareHost(opts.hostname);
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    const go = (addresses: { address: string; family: number }[]) => {
      for (const a of addresses) {
        const why = policy.check(name, port, a.address);
        if (why) return callback(new BlockedError(why), null);
      }
      if (!addresses.length)
        return callback(Object.assign(new Error(`cannot resolve ${name}`), { code: 'ENOTFOUND' }), null);
      // Connect to a checked address (no second lookup to race), the next one when it cannot be reached;
      // TLS still uses the name for SNI.
      const attempt = (i: number) => {
        base(
          { ...opts, hostname: addresses[i]!.address, servername: opts.servername ?? (isIP(name) ? undefined : name) },
          (err, socket) => {
            const code = (err as { code?: string } | null)?.code;
            if (
              err &&
              i + 1 < addresses.length &&
              (code === 'ECONNREFUSED' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH' || code === 'EADDRNOTAVAIL')
            )
              return attempt(i + 1);
            if (err) return callback(err, null);
            callback(null, socket!);
          },
        );
      };
      attempt(0);
    };
    const family = isIP(name);
    if (family) return go([{ address: name, family }]);
    lookup(name, { all: true }, (err, addresses) => {
      if (err) return callback(err, null);
      go(addresses);
    });
  };
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
    });
    // An answer at the URL reached so far: the final one, or a redirect to a URL the caller has (known).
    const reached = (
      status: number,
      rest: Pick<FetchResult, 'headers' | 'contentType' | 'truncated'> & { known?: true },
    ): FetchResult => ({ ok: true, url, finalUrl: current, status, hops, ...rest, requests });
    for (;;) {
      const step = await this.requestOnce(current, opts, current === url ? opts.headers : undefined);
      requests += step.requests;
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
  async check(url: string, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<FetchResult> {
    const head = await this.fetch(url, { ...opts, method: 'HEAD' });
    const retry = head.ok
      ? head.status === 405 || head.status === 501
      : head.failure === 'reset' || head.failure === 'timeout' || head.failure === 'network';
    if (!retry) return head;
    const get = await this.fetch(url, { ...opts, method: 'GET' });
    return { ...get, requests: get.requests + head.requests };
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
    | { kind: 'failure'; failure: FailureKind; detail: string; status?: number; requests: number }
    | { kind: 'redirect'; status: number; location: string; requests: number }
    | {
        kind: 'final';
        status: number;
        headers: IncomingHttpHeaders;
        contentType: string | null;
        truncated: boolean;
        requests: number;
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
    for (let attempt = 0; ; attempt++) {
      let release: () => void;
      try {
        release = await limiter.acquire(opts.signal);
      } catch {
        return { kind: 'failure', failure: 'aborted', detail: '', requests };
      }
      // Looked at after the wait: requests queued behind the one that found the name missing need not ask again.
      const unresolved = this.unresolved.get(u.hostname);
      if (unresolved !== undefined) {
        release();
        return { kind: 'failure', failure: 'dns', detail: unresolved, requests };
      }
      // One controller per request: the time limit covers headers and body; the crawl's signal stops it too.
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(new TimeoutError('timeout')), opts.timeoutMs);
      const onParentAbort = () => ac.abort(new AbortError());
      opts.signal?.addEventListener('abort', onParentAbort, { once: true });
      const cleanup = () => {
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
        return { kind: 'failure', ...failure, requests };
      }
      const status = res.statusCode;
      const resHeaders = res.headers;
      try {
        const retryAfter = parseRetryAfter(header(resHeaders, 'retry-after'));
        // A challenge page does not go away by waiting: it is the answer.
        if ((status === 429 || (status === 503 && retryAfter !== undefined)) && !blockMarker(status, resHeaders)) {
          await discard(res.body);
          if (attempt >= this.maxRetries)
            return {
              kind: 'failure',
              failure: 'rate_limited',
              detail: `${status} after ${attempt + 1} tries`,
              status,
              requests,
            };
          const wait = Math.min(this.maxRetryWaitMs, retryAfter ?? 1000 * 2 ** attempt);
          limiter.slowDown(wait);
          continue; // the limiter holds every request to this host until the wait is over
        }
        const location = header(resHeaders, 'location');
        if (status >= 300 && status < 400 && status !== 304 && location) {
          await discard(res.body);
          return { kind: 'redirect', status, location, requests };
        }
        const contentType = header(resHeaders, 'content-type') ?? null;
        const sink =
          method === 'HEAD'
            ? undefined
            : opts.onResponse?.({ url, status, headers: resHeaders, contentType }) || undefined;
        let truncated = false;
        if (sink) {
          truncated = await pump(
            res.body,
            header(resHeaders, 'content-encoding'),
            sink,
            opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
          );
        } else {
          await discard(res.body);
        }
        return { kind: 'final', status, headers: resHeaders, contentType, truncated, requests };
      } catch (err) {
        res.body.destroy();
        const reason = ac.signal.aborted ? ac.signal.reason : err;
        return { kind: 'failure', ...describeError(reason, opts.timeoutMs), status, requests };
      } finally {
        cleanup();
      }
    }
  }
}

/** Reads a small body to keep the connection reusable; a big one closes it instead. */
async function discard(body: Readable & { dump?: (o?: { limit: number }) => Promise<void> }): Promise<void> {
  try {
    if (body.dump) await body.dump({ limit: 64 * 1024 });
    else body.destroy();
  } catch {
    body.destroy();
  }
}

function decoderFor(encoding: string | undefined): Transform | null {
  const enc = (encoding ?? '').trim().toLowerCase();
  // finishFlush: a truncated stream yields what it has instead of an error.
  if (enc === 'gzip' || enc === 'x-gzip') return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  if (enc === 'deflate') return zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  if (enc === 'br') return zlib.createBrotliDecompress();
  return null;
}

/** Streams the (decoded) body into the sink; stops at maxBytes of either raw or decoded data. Resolves with whether it cut. */
function pump(body: Readable, encoding: string | undefined, sink: BodySink, maxBytes: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const decoder = decoderFor(encoding);
    const source: Readable = decoder ?? body;
    let raw = 0;
    let bytes = 0;
    let done = false;
    const finish = (err: unknown, truncated = false) => {
      if (done) return;
      done = true;
      source.off('data', onData);
      if (truncated) {
        body.destroy();
        decoder?.destroy();
      }
      if (err) return reject(err);
      try {
        sink.end();
      } catch (e) {
        return reject(e);
      }
      resolve(truncated);
    };
    const onData = (c: Buffer) => {
      if (done) return;
      try {
        if (bytes + c.length > maxBytes) {
          if (maxBytes > bytes) sink.write(c.subarray(0, maxBytes - bytes));
          bytes = maxBytes;
          return finish(null, true);
        }
        bytes += c.length;
        sink.write(c);
        if (raw > maxBytes) finish(null, true);
      } catch (e) {
        finish(e, true);
      }
    };
    if (decoder) {
      body.on('data', (c: Buffer) => void (raw += c.length));
      body.on('error', (e) => decoder.destroy(e));
      body.pipe(decoder);
    }
    source.on('data', onData);
    source.once('end', () => finish(null));
    source.once('error', (e) => finish(e));
    source.once('close', () =>
      finish(Object.assign(new Error('the body ended early'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })),
    );
  });
}
