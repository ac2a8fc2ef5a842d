// The plugin's plain functions: svc_search, svc_get_page_meta, svc_get_link_report, svc_manual_crawl,
// and the full/partial crawl and delete functions. They wrap the Backend and perform NO capability checks: a caller
// using them directly must check capabilities itself. They answer in the backend's REST forms.
import type { Backend } from '../backend/backend.js';
import type { FollowOptions } from '../backend/follow.js';
import type { PageContent, PageContentQuery, PageList, PageListQuery } from '../backend/page-contract.js';
import type { LinkReason } from '../model/link-reasons.js';
import type {
  CrawlRecord,
  DeletePagesResult,
  LinkReport,
  PageIndexState,
  PageMeta,
  SearchParams,
  SearchResults,
} from '../model/types.js';
import { pageMetaOfPost } from '../cms/posts.js';
import { LinkReportCache } from './link-report-cache.js';
import type { Post } from '../model/posts.js';
import { REPORT_LIMIT } from '../model/limits.js';

export interface LinkReportOptions {
  target?: string;
  limit?: number;
  /** Only these reasons; all when absent or empty. */
  reasons?: readonly LinkReason[];
  /** Only problems first seen after this time (ISO 8601). */
  since?: string;
  /** Read the backend instead of the cache (and store the fresh result). */
  refresh?: boolean;
  /** next_cursor of the previous page. */
  cursor?: string;
}

export interface SvcFunctions {
  svc_search(terms: string, params?: SearchParams): Promise<SearchResults>;
  /** The post itself (status and author included), or null. */
  svc_get_post(postId: number): Promise<Post | null>;
  /** The page meta of a post whatever its status, or null when there is no such post. */
  svc_get_page_meta(postId: number): Promise<PageMeta | null>;
  svc_get_link_report(opts?: LinkReportOptions): Promise<LinkReport>;
  /** Crawl `id`, or the latest crawl when id is null; null when there is none. */
  svc_get_crawl(id: number | null): Promise<CrawlRecord | null>;
  /** Follows crawl `id` until it ends or the wait is over; answers its record then. */
  svc_wait_for_crawl(id: number, opts: FollowOptions): Promise<CrawlRecord>;
  /** One stored page as Markdown (a chunk, or a section); in_search: only a page search shows. */
  svc_get_page(query: PageContentQuery): Promise<PageContent>;
  /** The stored pages under a prefix, paged by cursor; in_search: only pages search shows. */
  svc_list_pages(query: PageListQuery): Promise<PageList>;
  /** What the search index holds of a page URL. */
  svc_page_index_state(url: string): Promise<PageIndexState>;
  svc_full_crawl(): Promise<CrawlRecord>;
  svc_partial_crawl(): Promise<CrawlRecord>;
  svc_manual_crawl(urls: string[]): Promise<CrawlRecord>;
  svc_delete_pages(urls: string[]): Promise<DeletePagesResult>;
  /** Stops listening for crawl ends. */
  close(): void;
}

export interface SvcFunctionsOptions {
  backend: Backend;
  /** The host's post store (posts are the CMS's, not the backend's). */
  getPost(postId: number): Promise<Post | null>;
  cache?: LinkReportCache;
}

export function createSvcFunctions(opts: SvcFunctionsOptions): SvcFunctions {
  const { backend, getPost } = opts;
  const cache = opts.cache ?? new LinkReportCache();
  // A crawl that ends in this process may change the report: forget the cached reports.
  const unsubscribe = backend.onCrawlEnded(() => cache.clear());
  let seenVersion: string | null = null;
  return {
    svc_search: (terms, params = {}) => backend.search(terms, params),
    svc_get_post: (postId) => getPost(postId),
    async svc_get_page_meta(postId) {
      const post = await getPost(postId);
      return post ? pageMetaOfPost(post) : null;
    },
    async svc_get_link_report(o = {}) {
      const reasons = o.reasons?.length ? [...o.reasons] : null;
      const key = {
        target: o.target ?? null,
        limit: o.limit ?? REPORT_LIMIT.default,
        reasons,
        since: o.since ?? null,
        cursor: o.cursor ?? null,
      };
      // A crawl that ended in another process on the same database makes every cached report stale.
      const version = await backend.reportVersion();
      if (version !== seenVersion) {
        cache.clear();
        seenVersion = version;
      }
      if (!o.refresh) {
        const hit = cache.get(key);
        if (hit) return hit;
      }
      const report = await backend.linkReport({
        target: o.target,
        limit: key.limit,
        ...(reasons ? { reasons } : {}),
        ...(o.since ? { since: o.since } : {}),
        ...(o.cursor ? { cursor: o.cursor } : {}),
      });
      cache.set(key, report);
      return report;
    },
    async svc_get_crawl(id) {
      if (id !== null) return backend.getCrawl(id);
      return (await backend.listCrawls({ limit: 1, offset: 0 }))[0] ?? null;
    },
    svc_wait_for_crawl: (id, follow) => backend.waitForCrawl(id, follow),
    svc_page_index_state: (url) => backend.pageIndexState(url),
    svc_get_page: (query) => backend.getPage(query),
    svc_list_pages: (query) => backend.listPages(query),
    svc_full_crawl: () => backend.startCrawl({ mode: 'full' }),
    svc_partial_crawl: () => backend.startCrawl({ mode: 'partial' }),
    svc_manual_crawl: (urls) => backend.startCrawl({ mode: 'manual', urls }),
    async svc_delete_pages(urls) {
      const result = await backend.deletePages(urls);
      // Deleted pages take their links out of the report.
      if (result.deleted.length) cache.clear();
      return result;
    },
    close: unsubscribe,
  };
}
