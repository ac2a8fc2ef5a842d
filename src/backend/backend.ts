// The Backend interface: what the plain functions and the /v1 facade call. Two forms: embedded (this process
// crawls and stores) and remote (an undici client of another service's /v1 API). Both throw BackendError.
import type { FollowOptions } from './follow.js';
import type { PageContent, PageContentQuery, PageList, PageListQuery } from './page-contract.js';
import type { ScheduleInfo } from '../model/schedule.js';
import type { CrawlChanges } from '../model/history.js';
import type { WebhookDelivery } from '../model/webhooks.js';
import type { SearchStats, SearchStatsQuery } from '../model/search-stats.js';
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

export interface Backend {
  readonly kind: 'embedded' | 'remote';
  /** The project this backend serves (<id>:<region>). */
  readonly publicToken: string;
  /** Starts a crawl in the background and answers at once with its record. 409 (conflict) while one runs. */
  startCrawl(req: CrawlRequest): Promise<CrawlRecord>;
  /**
   * Queues a crawl for a schedule, live update or a person's `svc crawl --queue` (trigger request): never a
   * conflict; it runs in its turn in a serving process, svc serve or svc worker (a live update merges into its
   * waiting crawl). A remote backend asks the other service to start it.
   */
  queueCrawl(req: CrawlRequest, trigger: CrawlTrigger): Promise<CrawlRecord>;
  /** The schedules in force (stored, else the config's) with their next and last runs. */
  schedule(): Promise<ScheduleInfo>;
  /**
   * Stores a schedule that replaces the config's until cleared (null: clears it, the config's is in force again);
   * the serving processes on the database follow it without a restart. invalid_input names the field and the rule;
   * conflict when the project has no targets to crawl. Answers the schedule now in force.
   */
  setSchedule(schedule: unknown): Promise<ScheduleInfo>;
  getCrawl(id: number): Promise<CrawlRecord | null>;
  /**
   * Follows crawl `id` until it ends, `timeoutMs` passes or the signal fires, and answers its record then (ended or
   * not). `onProgress` hears its live progress meanwhile. not_found for an unknown id.
   */
  waitForCrawl(id: number, opts?: FollowOptions): Promise<CrawlRecord>;
  /**
   * Asks crawl `id` to stop, wherever it runs (its owner sees the request within one heartbeat); answers its record.
   * not_found for an unknown id, conflict when it is not queued or running. `why` becomes its error when known here.
   */
  stopCrawl(id: number, why?: string): Promise<CrawlRecord>;
  /** Newest first. */
  listCrawls(opts: { limit: number; offset: number }): Promise<CrawlRecord[]>;
  /**
   * Changes whenever a crawl of the project ends, in any process on the same database (null when this backend cannot
   * tell: a remote one): a cached report made under another version is stale.
   */
  reportVersion(): Promise<string | null>;
  /** Built from stored data only: never a request to the crawled site. */
  linkReport(query: LinkReportQuery): Promise<LinkReport>;
  /**
   * What crawl `id` changed since the previous completed full crawl: new and fixed problems. not_found for an unknown
   * crawl, conflict for one that has not ended.
   */
  crawlChanges(id: number): Promise<CrawlChanges>;
  /** Webhook deliveries of the project, newest first (never a secret). */
  listWebhookDeliveries(opts: { limit: number; offset: number }): Promise<WebhookDelivery[]>;
  search(terms: string, params: SearchParams): Promise<SearchResults>;
  /**
   * Search analytics since `since` (default: the retention window): top queries, queries with no results, searches
   * per day. invalid_input for a `since` that is not a date or is in the future, or a bad `limit`.
   */
  searchStats(query: SearchStatsQuery): Promise<SearchStats>;
  deletePages(urls: string[]): Promise<DeletePagesResult>;
  /** One stored page as Markdown (a chunk, or one section): from the store, never the site. */
  getPage(query: PageContentQuery): Promise<PageContent>;
  /** The stored pages under a prefix, paged by cursor. */
  listPages(query: PageListQuery): Promise<PageList>;
  /** What the search index holds of one URL (as given, or in its canonical form). */
  pageIndexState(url: string): Promise<PageIndexState>;
  /**
   * Called when a crawl run by this process ends (any end state; a person's crawl, or a queued one it claimed), and
   * when this process stops a queued crawl before it ran. Returns an unsubscribe function.
   */
  onCrawlEnded(listener: (record: CrawlRecord) => void): () => void;
  /** Stops what runs here (`why`: the stopped crawls' error) and lets go of connections. */
  close(why?: string): Promise<void>;
}
