// A stand-in for an upstream /v1 service behind an otherwise real app: for tests that must see whether the
// backend was reached at all, or need it to fail.
import type { App } from '../../src/app/open-app.js';
import type { Backend } from '../../src/backend/backend.js';
import type { PageContent, PageContentQuery, PageList, PageListQuery } from '../../src/backend/page-contract.js';
import type { ConfigInput } from '../../src/model/config.js';
import { BackendError } from '../../src/model/errors.js';
import type { CrawlChanges } from '../../src/model/history.js';
import type { ScheduleInfo } from '../../src/model/schedule.js';
import type {
  CrawlRecord,
  CrawlRequest,
  DeletePagesResult,
  LinkReport,
  LinkReportQuery,
  PageIndexState,
  SearchParams,
  SearchResults,
} from '../../src/model/types.js';
import type { WebhookDelivery } from '../../src/model/webhooks.js';
import type { SearchStats, SearchStatsQuery } from '../../src/model/search-stats.js';
import { makeApp, ONE_HOST, SITE, TARGET_HOST } from './app.js';
import { emptyReport } from './reports.js';

/** Answers with fixed data, records every call, and can be told to fail. */
export class FakeBackend implements Backend {
  readonly kind = 'remote' as const;
  readonly calls: { method: string; args: unknown[] }[] = [];
  readonly publicToken: string;
  failWith: BackendError | null = null;
  report: LinkReport = emptyReport({
    targets: [{ host: TARGET_HOST, linkTracking: 'all', walkLinks: true, lastCrawlError: null, pages: 3 }],
  });
  private nextId = 1;
  private listeners = new Set<(r: CrawlRecord) => void>();

  constructor(publicToken = 'demo1234:eu-north-1') {
    this.publicToken = publicToken;
  }

  private hit(method: string, args: unknown[]): void {
    this.calls.push({ method, args });
    if (this.failWith) throw this.failWith;
  }

  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  async startCrawl(req: CrawlRequest): Promise<CrawlRecord> {
    this.hit('startCrawl', [req]);
    return {
      id: this.nextId++,
      mode: req.mode,
      status: 'queued',
      ...(req.urls ? { urls: req.urls } : {}),
      startedAt: null,
      finishedAt: null,
      stats: { pages: 0, links: 0, errors: 0 },
    };
  }
  async queueCrawl(req: CrawlRequest, trigger: string): Promise<CrawlRecord> {
    this.hit('queueCrawl', [req, trigger]);
    return this.startCrawl(req);
  }
  async schedule(): Promise<ScheduleInfo> {
    return { full: null, partial: null, source: 'config', setAt: null };
  }
  async setSchedule(schedule: unknown): Promise<ScheduleInfo> {
    this.hit('setSchedule', [schedule]);
    return this.schedule();
  }
  async getCrawl(): Promise<CrawlRecord | null> {
    return null;
  }
  async waitForCrawl(id: number): Promise<CrawlRecord> {
    this.hit('waitForCrawl', [id]);
    throw new BackendError('not_found', `crawl ${id} not found`);
  }
  async stopCrawl(id: number): Promise<CrawlRecord> {
    this.hit('stopCrawl', [id]);
    throw new BackendError('not_found', `crawl ${id} not found`);
  }
  async listCrawls(): Promise<CrawlRecord[]> {
    return [];
  }
  async reportVersion(): Promise<string | null> {
    return null;
  }
  async linkReport(query: LinkReportQuery): Promise<LinkReport> {
    this.hit('linkReport', [query]);
    return structuredClone(this.report);
  }
  async crawlChanges(id: number): Promise<CrawlChanges> {
    this.hit('crawlChanges', [id]);
    throw new BackendError('not_found', `crawl ${id} not found`);
  }
  async listWebhookDeliveries(): Promise<WebhookDelivery[]> {
    return [];
  }
  async searchStats(query: SearchStatsQuery): Promise<SearchStats> {
    this.hit('searchStats', [query]);
    const totals = { searches: 0, no_result_searches: 0, queries: 0, no_result_queries: 0 };
    return {
      since: query.since ?? '',
      retention_days: 90,
      totals,
      top_queries: [],
      no_result_queries: [],
      days: [],
      limit: 20,
    };
  }

  async search(terms: string, params: SearchParams): Promise<SearchResults> {
    this.hit('search', [terms, params]);
    return {
      total: 1,
      duration: 1,
      hits: [
        {
          score: 1,
          title: 'Hello world',
          url: `${SITE}/hello`,
          language: 'en',
          highlight: '<em>Hello</em> world',
          tags: ['public'],
          created: null,
          modified: null,
          customFields: {},
        },
      ],
    };
  }
  async deletePages(urls: string[]): Promise<DeletePagesResult> {
    this.hit('deletePages', [urls]);
    return { deleted: urls.slice(0, 1), notFound: urls.slice(1) };
  }
  async getPage(query: PageContentQuery): Promise<PageContent> {
    this.hit('getPage', [query]);
    throw new BackendError('not_found', `no stored page at ${query.url}`);
  }
  async listPages(query: PageListQuery): Promise<PageList> {
    this.hit('listPages', [query]);
    return { prefix: query.prefix, pages: [], total: 0, next_cursor: null };
  }
  async pageIndexState(url: string): Promise<PageIndexState> {
    this.hit('pageIndexState', [url]);
    return { indexed: false, inSearch: false, lastCrawled: null };
  }
  onCrawlEnded(listener: (record: CrawlRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  /** As if a crawl started by this process ended. */
  endCrawl(record: Partial<CrawlRecord> = {}): void {
    const r: CrawlRecord = {
      id: 99,
      mode: 'full',
      status: 'completed',
      startedAt: null,
      finishedAt: null,
      stats: { pages: 0, links: 0, errors: 0 },
      ...record,
    };
    for (const l of this.listeners) l(r);
  }
  async close(): Promise<void> {}
}

/** An ability-test app (ONE_HOST) whose backend is a FakeBackend (the store stays real). */
export async function makeFakeApp(over: Partial<ConfigInput> = {}): Promise<{ app: App; backend: FakeBackend }> {
  const app = await makeApp(over, ONE_HOST);
  const backend = new FakeBackend(app.config.project.public_token);
  const real = app.backend;
  app.backend = backend;
  const close = app.close.bind(app);
  app.close = async () => {
    app.backend = real;
    await close();
  };
  return { app, backend };
}
