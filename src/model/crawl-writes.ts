// What a crawl hands to its sink: pages with the links found on them, and link outcomes.
import type { LinkOutcomeReason } from './link-reasons.js';
import type { PageMeta } from './types.js';

export interface FoundLink {
  /** Canonical URL; with `#fragment` when its fragment is checked (check_fragments). */
  url: string;
  element: string;
  /** Anchor text or alt, at most 100 characters. */
  text: string;
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
  /** Fragment targets on the page (ids, <a name>), when a target checks fragments; null when not collected. */
  anchors?: string[] | null;
  /** The text of the page's headings (h1–h6), in order; none when absent. Search ranks a page whose heading is the query high. */
  headings?: string[];
}

export interface OutcomeWrite {
  url: string;
  httpStatus: number;
  reason: LinkOutcomeReason;
  message: string;
  redirectsTo: string | null;
  /** The answer was a bot or rate-limit block (status 999, a challenge page). */
  blocked?: boolean;
  crawlId: number | null;
  /** Only record it when the URL has no outcome yet (a stopped crawl's `unknown` must not hide a known outcome). */
  onlyIfNew?: boolean;
}
