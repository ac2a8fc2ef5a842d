// What a crawl hands to its sink: pages with the links found on them, and link outcomes.
import type { LinkOutcomeReason } from './link-reasons.js';
import type { PageMeta } from './types.js';

export interface FoundLink {
  url: string;
  element: string;
}

export interface PageWrite {
  url: string;
  /** The target's host[:port]. */
  host: string;
  httpStatus: number;
  contentType: string | null;
  /** false for noindex pages and non-HTML documents: stored (their links count) but not searchable. */
  indexed: boolean;
  showInSearch: boolean;
  title: string;
  language: string | null;
  tags: string[];
  superwords: string[];
  content: string;
  meta: PageMeta | null;
  created: string | null;
  modified: string | null;
  sitemapLastmod: string | null;
  crawlId: number | null;
  links: FoundLink[];
}

export interface OutcomeWrite {
  url: string;
  httpStatus: number;
  reason: LinkOutcomeReason;
  message: string;
  redirectsTo: string | null;
  crawlId: number | null;
  /** Only record it when the URL has no outcome yet (a stopped crawl's `unknown` must not hide a known outcome). */
  onlyIfNew?: boolean;
}
