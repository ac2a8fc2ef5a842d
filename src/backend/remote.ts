// The Backend as an undici client of another service's /v1 API (SVC_BASE_URL + SVC_API_KEY + SVC_PUBLIC_TOKEN).
// Every call has a timeout; reads are retried a bounded number of times on connection errors and 502/503/504;
// upstream failures become BackendError with the upstream status and message.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent, Dispatcher } from 'undici';
import type { z } from 'zod';
import { readCapped } from '../lib/read-capped.js';
import { MANUAL_URLS_MAX } from '../model/limits.js';
import type { Logger } from '../lib/log.js';
import type { Backend } from './backend.js';
import {
  PageContentSchema,
  PageListSchema,
  type PageContent,
  type PageContentQuery,
  type PageList,
  type PageListQuery,
} from './page-contract.js';
import { pollCrawl, type FollowOptions } from './follow.js';
import { BackendError, type BackendErrorCode } from '../model/errors.js';
import { problemCounts } from '../model/counts.js';
import { LINK_REASONS } from '../model/link-reasons.js';
import {
  CrawlChangesSchema,
  WebhookDeliveryListSchema,
  CrawlListSchema,
  CrawlRecordSchema,
  ScheduleSchema,
  DeletePagesResultSchema,
  ErrorSchema,
  LinkReportSchema,
  PageIndexStateSchema,
  SearchResultsSchema,
  SearchStatsSchema,
} from './contract.js';
import type { SearchStats, SearchStatsQuery } from '../model/search-stats.js';
import type { ScheduleInfo } from '../model/schedule.js';
import type { CrawlChanges } from '../model/history.js';
import type { WebhookDelivery } from '../model/webhooks.js';
import type {
  CrawlRecord,
  CrawlRequest,
  CrawlTrigger,
  DeletePagesResult,
  LinkReport,
  LinkReportQuery,
  PageIndexState,
  SearchParams,
  SearchResults,
} from '../model/types.js';

export interface RemoteBackendOptions {
  baseUrl: string;
  apiKey: string;
  publicToken: string;
  logger: Logger;
  /** Per request: connect, answer headers, and the whole body. Default 30 s. */
  timeoutMs?: number;
  /** Attempts of a retryable call, the first included. Default 3. */
  attempts?: number;
  /** First retry delay; each further one triples it (plus jitter). Default 200 ms. */
  backoffMs?: number;
  /** Connections kept to the upstream. Default 16. */
  connections?: number;
}

/** Largest answer body read from the upstream (a 5000-link report is well under 1 MB). */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** The facade's page size for its lists (crawls, webhook deliveries). */
const LIST_PAGE = 100;
const RETRY_STATUSES = new Set([502, 503, 504]);
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

interface CallOptions<S extends z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  schema: S;
  /** Safe to send twice: retried on connection errors and 502/503/504. */
  retry: boolean;
  /** Answer null for a 404 with this error code (a missing crawl) instead of throwing. */
  nullOn404Code?: string;
}

/** A node/undici error code such as ECONNREFUSED, or the error's name (TimeoutError from the abort signal). */
function errorCode(err: unknown): string {
  const e = err as { name?: unknown; code?: unknown; cause?: { code?: unknown } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return e.name;
  for (const c of [e?.cause?.code, e?.code]) if (typeof c === 'string') return c;
  return typeof e?.name === 'string' ? e.name : 'error';
}

/** Upstream 4xx keep their meaning; anything else is the upstream's failure. */
function codeForStatus(status: number): BackendErrorCode {
  if (status === 400 || status === 413 || status === 422) return 'invalid_input';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 501) return 'not_implemented';
  return 'upstream_error';
}

export class RemoteBackend implements Backend {
  readonly kind = 'remote' as const;
  readonly publicToken: string;
  private readonly agent: () => Promise<Agent>;
  private agentP: Promise<Agent> | undefined;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly logger: Logger;
  private readonly headers: Record<string, string>;

  constructor(opts: RemoteBackendOptions) {
    this.publicToken = opts.publicToken;
    this.logger = opts.logger;
    const base = new URL(opts.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error('api.base_url must be an http(s) URL');
    this.origin = base.origin;
    this.prefix = `${base.pathname.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(opts.publicToken)}`;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.attempts = Math.max(1, opts.attempts ?? 3);
    this.backoffMs = opts.backoffMs ?? 200;
    this.headers = {
      authorization: `Bearer ${opts.apiKey}`,
      accept: 'application/json',
      'user-agent': 'svc-remote-backend/1',
    };
    const agentOptions = {
      connections: opts.connections ?? 16,
      keepAliveTimeout: 10_000,
      connect: { timeout: Math.min(this.timeoutMs, 10_000) },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    };
    // undici loads on first use: `svc mcp` must answer tools/list quickly, and may never call upstream.
    this.agent = () => (this.agentP ??= import('undici').then(({ Agent }) => new Agent(agentOptions)));
  }

  async startCrawl(req: CrawlRequest): Promise<CrawlRecord> {
    return this.call({ method: 'POST', path: '/crawls', body: req, schema: CrawlRecordSchema, retry: false });
  }

  /**
   * The other service has its own queue and schedules; /v1 starts crawls for people only, so this asks it to start
   * one (a conflict while one runs there). A live update larger than one manual crawl may list becomes a full crawl.
   */
  async queueCrawl(req: CrawlRequest, _trigger: CrawlTrigger): Promise<CrawlRecord> {
    return this.startCrawl(req.urls && req.urls.length > MANUAL_URLS_MAX ? { mode: 'full' } : req);
  }

  async schedule(): Promise<ScheduleInfo> {
    return this.call({ method: 'GET', path: '/schedule', schema: ScheduleSchema, retry: true });
  }

  /** The other service stores it and checks it (its 400 names the field). */
  async setSchedule(schedule: unknown): Promise<ScheduleInfo> {
    if (schedule === null)
      return this.call({ method: 'DELETE', path: '/schedule', schema: ScheduleSchema, retry: false });
    return this.call({ method: 'PUT', path: '/schedule', body: schedule, schema: ScheduleSchema, retry: false });
  }

  async getCrawl(id: number): Promise<CrawlRecord | null> {
    return this.call({
      method: 'GET',
      path: `/crawls/${id}`,
      schema: CrawlRecordSchema,
      retry: true,
      nullOn404Code: 'crawl_not_found',
    });
  }

  async waitForCrawl(id: number, opts: FollowOptions = {}): Promise<CrawlRecord> {
    return pollCrawl(id, (i) => this.getCrawl(i), opts, 1000);
  }

  async stopCrawl(id: number, _why?: string): Promise<CrawlRecord> {
    return this.call({ method: 'POST', path: `/crawls/${id}/stop`, schema: CrawlRecordSchema, retry: false });
  }

  async listCrawls(opts: { limit: number; offset: number }): Promise<CrawlRecord[]> {
    return this.readPaged(
      opts,
      async (query) =>
        (await this.call({ method: 'GET', path: '/crawls', query, schema: CrawlListSchema, retry: true })).crawls,
    );
  }

  /** The other service's crawls end unseen: its reports are cached for their lifetime only. */
  async reportVersion(): Promise<string | null> {
    return null;
  }

  async linkReport(query: LinkReportQuery): Promise<LinkReport> {
    const r = await this.call({
      method: 'GET',
      path: '/link-report',
      query: {
        target: query.target,
        limit: query.limit,
        reasons: query.reasons?.length ? query.reasons.join(',') : undefined,
        since: query.since,
        cursor: query.cursor,
      },
      schema: LinkReportSchema,
      retry: true,
    });
    return { ...r, counts: r.counts ?? countsOfAnOlderAnswer(r), topLinks: r.topLinks ?? [] };
  }

  async crawlChanges(id: number): Promise<CrawlChanges> {
    return this.call({ method: 'GET', path: `/crawls/${id}/changes`, schema: CrawlChangesSchema, retry: true });
  }

  async listWebhookDeliveries(opts: { limit: number; offset: number }): Promise<WebhookDelivery[]> {
    return this.readPaged(
      opts,
      async (query) =>
        (
          await this.call({
            method: 'GET',
            path: '/webhook-deliveries',
            query,
            schema: WebhookDeliveryListSchema,
            retry: true,
          })
        ).deliveries,
    );
  }

  /** The facade pages lists by at most 100; larger asks are read page by page so both backends answer alike. */
  private async readPaged<T>(
    opts: { limit: number; offset: number },
    page: (q: { limit: number; offset: number }) => Promise<T[]>,
  ): Promise<T[]> {
    const out: T[] = [];
    while (out.length < opts.limit) {
      const limit = Math.min(LIST_PAGE, opts.limit - out.length);
      const items = await page({ limit, offset: opts.offset + out.length });
      out.push(...items);
      if (items.length < limit) break;
    }
    return out;
  }

  async searchStats(query: SearchStatsQuery): Promise<SearchStats> {
    return this.call({
      method: 'GET',
      path: '/search-stats',
      query: { since: query.since, limit: query.limit },
      schema: SearchStatsSchema,
      retry: true,
    });
  }

  /** Read-only, so retried like a GET although it is a POST. */
  async search(terms: string, params: SearchParams): Promise<SearchResults> {
    return this.call({
      method: 'POST',
      path: '/search',
      body: { terms, params },
      schema: SearchResultsSchema,
      retry: true,
    });
  }

  async deletePages(urls: string[]): Promise<DeletePagesResult> {
    return this.call({
      method: 'POST',
      path: '/pages/delete',
      body: { urls },
      schema: DeletePagesResultSchema,
      retry: false,
    });
  }

  async getPage(query: PageContentQuery): Promise<PageContent> {
    return this.call({
      method: 'GET',
      path: '/pages/content',
      query: {
        url: query.url,
        start_index: query.start_index,
        max_length: query.max_length,
        section: query.section,
        in_search: optionalFlag(query.in_search),
      },
      schema: PageContentSchema,
      retry: true,
    });
  }

  async listPages(query: PageListQuery): Promise<PageList> {
    return this.call({
      method: 'GET',
      path: '/pages',
      query: {
        prefix: query.prefix,
        cursor: query.cursor,
        limit: query.limit,
        in_search: optionalFlag(query.in_search),
      },
      schema: PageListSchema,
      retry: true,
    });
  }

  async pageIndexState(url: string): Promise<PageIndexState> {
    return this.call({ method: 'GET', path: '/pages', query: { url }, schema: PageIndexStateSchema, retry: true });
  }

  /**
   * Crawls run in the other service, which has no way to call back: a remote backend never observes a crawl end,
   * so listeners are never called. Poll getCrawl(id) to follow a remote crawl.
   */
  onCrawlEnded(_listener: (record: CrawlRecord) => void): () => void {
    return () => {};
  }

  async close(): Promise<void> {
    if (this.agentP) await (await this.agentP).close();
  }

  private async call<S extends z.ZodType>(c: CallOptions<S> & { nullOn404Code: string }): Promise<z.output<S> | null>;
  private async call<S extends z.ZodType>(c: CallOptions<S>): Promise<z.output<S>>;
  private async call<S extends z.ZodType>(c: CallOptions<S>): Promise<z.output<S> | null> {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(c.query ?? {})) if (v !== undefined) qs.set(k, String(v));
    const path = `${this.prefix}${c.path}${qs.size ? `?${qs}` : ''}`;
    const what = `${c.method} ${c.path}`;
    for (let attempt = 1; ; attempt++) {
      const last = !c.retry || attempt >= this.attempts;
      let status: number;
      let text: string;
      let retryAfter: string | undefined;
      try {
        const res = await (await this.agent()).request({
          origin: this.origin,
          path,
          method: c.method,
          headers: c.body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
          body: c.body === undefined ? undefined : JSON.stringify(c.body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        status = res.statusCode;
        retryAfter = typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined;
        text = await readAnswer(res.body);
      } catch (err) {
        const code = errorCode(err);
        if (!last && CONNECTION_ERRORS.has(code)) {
          await this.pause(attempt, undefined, what, code);
          continue;
        }
        const timedOut =
          code === 'TimeoutError' || code === 'AbortError' || (code.startsWith('UND_ERR_') && code.includes('TIMEOUT'));
        const why = timedOut ? `no answer within ${this.timeoutMs} ms` : code;
        throw new BackendError(
          'upstream_error',
          `the remote /v1 service at ${this.origin} could not be reached (${what}): ${why}`,
        );
      }
      if (RETRY_STATUSES.has(status) && !last) {
        await this.pause(attempt, retryAfter, what, String(status));
        continue;
      }
      if (status >= 200 && status < 300) return this.decode(c.schema, text, status, what);
      const upstream = parseError(text);
      if (status === 404 && c.nullOn404Code && upstream?.code === c.nullOn404Code) return null;
      throw upstreamError(status, upstream?.message);
    }
  }

  private decode<S extends z.ZodType>(schema: S, text: string, status: number, what: string): z.output<S> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new BackendError(
        'upstream_error',
        `the remote /v1 service answered ${what} with a body that is not JSON`,
        status,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BackendError(
        'upstream_error',
        `the remote /v1 service answered ${what} with an unexpected body (${issue?.path.join('.') || 'body'}: ${issue?.message})`,
        status,
      );
    }
    return parsed.data;
  }

  private async pause(attempt: number, retryAfter: string | undefined, what: string, why: string): Promise<void> {
    const asked = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : NaN;
    const base = this.backoffMs * 3 ** (attempt - 1);
    const ms = Math.min(Number.isFinite(asked) ? asked : base + Math.random() * base * 0.5, 5_000);
    this.logger.warn(
      { attempt, of: this.attempts, call: what, why, wait_ms: Math.round(ms) },
      'remote /v1 call failed; retrying',
    );
    await sleep(ms);
  }
}

function parseError(text: string): { code: string; message: string } | null {
  try {
    const parsed = ErrorSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.error : null;
  } catch {
    return null;
  }
}

function upstreamError(status: number, message: string | undefined): BackendError {
  const code = codeForStatus(status);
  if (code !== 'upstream_error')
    return new BackendError(code, message ?? `the remote /v1 service answered ${status}`, status);
  if (status === 401 || status === 403) {
    return new BackendError(
      'upstream_error',
      `the remote /v1 service refused the API key (${status}${message ? `: ${message}` : ''})`,
      status,
    );
  }
  return new BackendError(
    'upstream_error',
    `the remote /v1 service answered ${status}${message ? `: ${message}` : ''}`,
    status,
  );
}

async function readAnswer(body: Dispatcher.ResponseData['body']): Promise<string> {
  const bytes = await readCapped(body, MAX_ANSWER_BYTES, () => {
    body.destroy();
    return Object.assign(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`), { code: 'answer_too_large' });
  });
  return bytes.toString('utf8');
}

/**
 * The counts of a report from an older service, which does not send them: occurrences from its sections' counts,
 * problem links from the links it lists (all of them unless truncated), pages from its targets when it says.
 */
function countsOfAnOlderAnswer(r: Omit<LinkReport, 'counts' | 'topLinks'>): LinkReport['counts'] {
  const tallies = LINK_REASONS.map(({ section }, rank) => ({
    rank,
    problemLinks: new Set(r[section].pages.flatMap((p) => p.links.map((l) => l.url))).size,
    occurrences: r[section].count,
  }));
  return { pages: r.targets.reduce((n, t) => n + (t.pages ?? 0), 0), ...problemCounts(tallies) };
}

/** A boolean query parameter as /v1 reads it; absent when not given. */
function optionalFlag(v: boolean | undefined): string | undefined {
  return v === undefined ? undefined : String(v);
}
