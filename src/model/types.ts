// The data shapes the backend hands upward (REST form, camelCase). The ability layer maps them to its
// snake_case forms; nothing below the backend knows about abilities.
import type { ProblemCounts, ProblemTally } from './counts.js';
import type { LinkReason } from './link-reasons.js';

export const CRAWL_MODES = ['full', 'partial', 'manual'] as const;
export type CrawlMode = (typeof CRAWL_MODES)[number];
export const CRAWL_STATUSES = ['queued', 'running', 'completed', 'stopped', 'failed'] as const;
export type CrawlStatus = (typeof CRAWL_STATUSES)[number];
const ENDED_STATUSES: readonly CrawlStatus[] = ['completed', 'stopped', 'failed'];
/** Whether a crawl in this status has ended (it never changes again). */
export function crawlEnded(status: CrawlStatus): boolean {
  return ENDED_STATUSES.includes(status);
}
/**
 * Who asked for a crawl: `request` a person or a program (REST, ability, MCP tool, CLI), which runs at once or gets
 * a conflict — or, with `svc crawl --queue`, is queued; the others are always queued. A queued crawl runs in its turn
 * in a serving process (svc serve or svc worker).
 */
export const CRAWL_TRIGGERS = ['request', 'schedule:full', 'schedule:partial', 'live_update'] as const;
export type CrawlTrigger = (typeof CRAWL_TRIGGERS)[number];

export interface CrawlTargetStats {
  pages: number;
  /** max_pages cut this target short: links left unfetched are `unknown`, nothing is removed. */
  cutByMaxPages: boolean;
  /** Full crawls: whether this target walked links (walk_links, or unset: no sitemap was found). */
  walkLinks?: boolean;
  /** None of its seeds could be fetched (connection failure, timeout, 5xx): nothing of it was cleared. */
  unreachable?: boolean;
  /** Why it was unreachable, one line. */
  error?: string;
}

export interface CrawlStats {
  pages: number;
  links: number;
  errors: number;
  /** Of `pages`: stored pages the site answered 304 Not Modified for (kept as they are, links replayed). */
  notModified?: number;
  /** Of `pages`: stored pages fetched again with the same body (not parsed or indexed again, links replayed). */
  unchanged?: number;
  /** Requests sent again after a timeout, a reset or a 5xx (a target's `retries`); absent when none were. */
  retries?: number;
  /** Per target host; present once the crawl has started. */
  targets?: Record<string, CrawlTargetStats>;
  /**
   * Distinct link URLs the link report held with a problem reason when this crawl's report was final (of every
   * configured target, not only what this crawl fetched); absent until then, and from older records.
   */
  problemLinks?: number;
  /** The (page, link) pairs of those problem links. */
  occurrences?: number;
  /** problemLinks and occurrences per reason. */
  reasons?: Record<LinkReason, ProblemTally>;
}

export interface CrawlRecord {
  id: number;
  mode: CrawlMode;
  status: CrawlStatus;
  /** Who asked for it; absent means `request` (records made before there was a queue). */
  trigger?: CrawlTrigger;
  urls?: string[];
  /** When it started running (null while it waits in the queue). */
  startedAt: string | null;
  finishedAt: string | null;
  /** When its link report was final (before its search index is built); null until then. Absent from older services. */
  reportReadyAt?: string | null;
  /** When its pages were in the search index (search answers from the previous index until then); null until then. */
  indexedAt?: string | null;
  stats: CrawlStats;
  /** Why a crawl failed or stopped, when known. */
  error?: string;
}

/** Live progress of a running crawl. */
export interface CrawlProgress {
  /** Page fetches finished. */
  pagesDone: number;
  /** Pages and link checks waiting. */
  queued: number;
  /**
   * Page fetches waiting (the sitemap's pages once seeded, and pages found since): with pagesDone, the pages the
   * crawl knows of so far. Absent from a service that does not tell it.
   */
  pagesQueued?: number;
  /** Broken links found so far. */
  errors: number;
  /** Link outcomes recorded so far. */
  linksChecked: number;
  /** HTTP requests sent. */
  requests: number;
  elapsedMs: number;
  stats: CrawlStats;
}

export interface CrawlRequest {
  mode: CrawlMode;
  urls?: string[];
}

export interface ReportLink {
  url: string;
  httpStatus: number;
  message: string;
  redirectsTo?: string;
  /** The element the link was found in: a, area, img, source, script, link, iframe, video, audio, track, embed, css. */
  element: string;
  /** The anchor text or alt text (at most 100 characters); '' when the element has none. */
  text: string;
  /** Present (true) when the answer was a bot or rate-limit block rather than real breakage. */
  blocked?: true;
  /**
   * When the crawl that first found this problem (this link on this page, with this reason) ended (ISO 8601); absent
   * while the crawl that found it has not ended.
   */
  firstSeen?: string;
}

export interface ReportPage {
  url: string;
  links: ReportLink[];
}

export interface ReportSection {
  count: number;
  pages: ReportPage[];
}

export interface ReportTarget {
  host: string;
  linkTracking: 'pdf' | 'all';
  walkLinks: boolean;
  /** Why the latest crawl could not reach this target (one line), or null. */
  lastCrawlError: string | null;
  /** Pages of this target the store holds now (what its crawls stored); null from an older service, which does not say. */
  pages: number | null;
}

/**
 * Whether the report speaks of the site: `not_crawled` when no crawl has stored a page of its targets nor found
 * them unreachable (never crawled, or no target at all) — an empty report then means nothing, not "no problems".
 */
export const REPORT_STATUSES = ['ready', 'not_crawled'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** The report's counts (docs/index.md's glossary): pages stored of its targets, and its problems. */
export interface ReportCounts extends ProblemCounts {
  pages: number;
}

/** A problem link with the number of pages carrying it, counted over the whole report (not the rows shown). */
export interface ReportTopLink {
  url: string;
  reason: LinkReason;
  httpStatus: number;
  pages: number;
}

/** Link report, REST form. */
export interface LinkReport {
  status: ReportStatus;
  counts: ReportCounts;
  /** The problem links on the most pages, most first, whatever the limit (at most 100). */
  topLinks: ReportTopLink[];
  notFound: ReportSection;
  forbidden: ReportSection;
  serverError: ReportSection;
  redirect: ReportSection;
  unknown: ReportSection;
  targets: ReportTarget[];
  truncated: boolean;
  lastFullCrawl: string | null;
  /** Give it back as the query's cursor for the links after these; null on the last page (absent from an older service). */
  next_cursor?: string | null;
}

export interface LinkReportQuery {
  target?: string;
  /** 1..5000, default 1000. */
  limit: number;
  /** Only these reasons (the other sections are empty, count 0); all when absent. */
  reasons?: readonly LinkReason[];
  /** Only problems first seen after this time (ISO 8601); all when absent. */
  since?: string;
  /** next_cursor of the previous page: the links after those. */
  cursor?: string;
}

/** What the search index holds of one URL. */
export interface PageIndexState {
  /** A crawl stored the page and indexed its text (HTML, not noindex). */
  indexed: boolean;
  /** It can appear in search results: indexed and not hidden from search. */
  inSearch: boolean;
  /** When a crawl last stored it; null when no crawl has. */
  lastCrawled: string | null;
}

export interface CustomField {
  type: 'keyword' | 'number' | 'date';
  value: string | number;
}

/** What the CMS exposes for a post and the crawler indexes. */
export interface PageMeta {
  showInSearch: boolean;
  title: string;
  url: string;
  created: string | null;
  modified: string | null;
  language: string | null;
  tags: string[];
  customFields: Record<string, CustomField>;
  superwords: string[];
  contentNoHighlight?: string;
  description?: string;
}

export interface SearchParams {
  size?: number;
  from?: number;
  lang?: string;
  tags?: string[];
  /** Only pages whose address path starts with this ("/docs/"). */
  path_prefix?: string;
  /** Count the matches by these (SEARCH_FACETS). */
  facets?: ('lang' | 'tags' | 'path')[];
  highlight_length?: number;
}

export interface SearchHit {
  score: number;
  title: string;
  url: string;
  language: string | null;
  highlight: string;
  tags: string[];
  created: string | null;
  modified: string | null;
  customFields: Record<string, CustomField>;
  /**
   * Only on a hit that holds some of the query's words, not all (listed after every hit that holds all): the
   * words it holds, as searched.
   */
  matched_terms?: string[];
  /** The section of the page that best matches the query (null when none does); absent from an older service. */
  section?: { heading: string; anchor: string } | null;
}

/** One value of a facet and how many matches have it. */
export interface FacetCount {
  value: string;
  count: number;
}

/** A word of the query that is in no page, and the word of the index it was searched as. */
export interface CorrectedTerm {
  from: string;
  to: string;
}

export interface SearchResults {
  total: number;
  /** Milliseconds spent answering. */
  duration: number;
  hits: SearchHit[];
  /** Words of the query that are in no page, each searched as the nearest word of the index ("showing results for"). */
  corrected_terms?: CorrectedTerm[];
  /** When the query finds little: the same query with a rare word replaced by a more frequent near word. */
  did_you_mean?: string;
  /** With search_params.facets: per facet asked, the most frequent values among the matches. */
  facets?: Partial<Record<'lang' | 'tags' | 'path', FacetCount[]>>;
}

export interface DeletePagesResult {
  deleted: string[];
  notFound: string[];
}
