// What a crawl hands to its sink: pages with the links found on them, and link outcomes.
import type { LinkOutcomeReason } from './link-reasons.js';
import type { OutlineEntry } from './page-content.js';
import type { CrawlStats, PageMeta } from './types.js';

export interface FoundLink {
  /** Canonical URL; with `#fragment` when its fragment is checked (check_fragments). */
  url: string;
  element: string;
  /** Anchor text or alt, at most 100 characters. */
  text: string;
}

/** A link as found on a page (resolved, canonical), before the crawl decides what of it to walk, check and store. */
export interface ExtractedLink {
  /** Resolved and canonical (see crawler/urls.ts). */
  url: string;
  /** The element it came from: a, area, img, source, script, link, iframe, video, audio, track, embed, css. */
  element: string;
  /** A link to another page (a, area, iframe, navigational <link>), as opposed to a resource the page loads. */
  walkable: boolean;
  /** rel="nofollow" on the link itself. */
  nofollow: boolean;
  /** The anchor text (or alt, aria-label, title), at most 100 characters; '' when there is none. */
  text: string;
  /** A stylesheet (<link rel=stylesheet>, @import): its own links are read when the target checks CSS. */
  stylesheet?: boolean;
  /** The fragment of an <a>/<area> link, without '#' (only when fragments are collected, and only when not empty). */
  fragment?: string;
}

/**
 * What the next crawl needs to ask whether a document changed and, when it did not, to go on without it: its
 * validators, a hash of what it was made of, and the links found on it (opaque to the store: the crawler's own form).
 */
export interface PageRevisit {
  etag: string | null;
  lastModified: string | null;
  /** Hash of the body and the response headers that shaped the stored page; null when the body was not read. */
  bodyHash: string | null;
  /** The settings the page was extracted with: a stored page is only reused under the same ones. */
  key: string;
  /** The links as found, with what walking them needs (crawler-encoded). */
  found: string;
}

/** A stored page this crawl found unchanged (304, or the same body): it stays as it is, with its links and index entry. */
export interface KeepWrite {
  url: string;
  crawlId: number | null;
  sitemapLastmod: string | null;
  /** The validators to ask with next time (a 304 may bring new ones). */
  etag: string | null;
  lastModified: string | null;
  /** How the crawl found it unchanged (304, or the same body): the store counts each kind per crawl. */
  kind: 'notModified' | 'unchanged';
}

/** What a stored page offers a revisit (the store answers it only when the page has links to replay). */
export interface StoredRevisit extends PageRevisit {
  httpStatus: number;
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
  /** Kept for the next crawl's conditional request and link replay; absent: the page cannot be revisited so. */
  revisit?: PageRevisit | null;
  /**
   * The text of the page's headings (h1–h6, and definition terms marked with DEFINITION_TERM), in order; none when
   * absent. Search ranks a page whose heading is the query high.
   */
  headings?: string[];
  /** The page as Markdown with its outline, for reading it back (HTML pages); none: nothing to read but its text. */
  markdown?: string;
  outline?: OutlineEntry[];
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

// What the crawler writes to and reads from (see crawler/sink.ts): the store makes them, the crawler uses them.

export interface CrawlSink {
  /** A fetched document (HTML or not), with the tracked links found on it. */
  page(p: PageWrite): void;
  /** The outcome of one link URL (once per crawl). */
  outcome(o: OutcomeWrite): void;
  /** The stored page stays as it is but counts as seen by this crawl (e.g. a transient failure). */
  touch(url: string): void;
  /** A stored page found unchanged (304, or the same body): it stays as it is, with its links and index entry. */
  keep(k: KeepWrite): void;
  /** The stored page under this URL goes (it is gone, or now redirects). */
  remove(url: string): void;
  /** The crawl's live stats, written with the next batch. */
  stats(s: CrawlStats): void;
  /** Hands held writes over (they may still be committing). */
  flush(): void;
  /** Waits while the sink is behind, so memory stays bounded; throws when writing failed. */
  settle(): Promise<void>;
  /** Flushes and waits until everything is written. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Reads of what is stored, asynchronous so that a network database fits: one query per call, as few as the crawl needs. */
export interface CrawlReader {
  /** url → sitemap lastmod of every stored page of a target host (partial crawls compare them). */
  sitemapLastmods(host: string): Promise<Map<string, string | null>>;
  /** The fragment targets stored with a page by an earlier crawl (check_fragments), or null. */
  pageAnchors(url: string): Promise<string[] | null>;
  /** Whether a link URL's stored outcome is ok and was checked at or after `since` (ISO 8601): the external link cache. */
  okCheckedSince(url: string, since: string): Promise<boolean>;
  /**
   * The stored pages' validators, body hash, settings key and found links (what a conditional re-crawl needs), by
   * URL, for many URLs in one query (the crawl reads them for its next queued pages at once); a URL with none is
   * absent.
   */
  revisits(urls: readonly string[]): Promise<Map<string, StoredRevisit>>;
}

/**
 * The mark at the start of a heading that is a definition list's term (`<dt>`): it counts only when it is the query
 * (an option or a setting defined), and then as a heading holding the words does, never as a heading that is the
 * query (a glossary's terms would outrank the pages about them; a command's "ENABLE ROW LEVEL SECURITY" is no
 * section about row level security). A control character: no text holds it, and the
 * index's tokenizers read it as a separator.
 */
export const DEFINITION_TERM = '\u001f';
