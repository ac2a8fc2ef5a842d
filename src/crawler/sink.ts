// What the crawler writes to and reads from, defined here so the crawler needs no database: the backend hands it
// the store's batched writer and a reader of what is stored (lastmods, anchors, outcomes, a page's validators and
// found links for a conditional re-crawl); tests hand it plain objects.
import type { KeepWrite, OutcomeWrite, PageWrite, StoredRevisit } from '../model/crawl-writes.js';
import type { CrawlStats } from '../model/types.js';

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

export interface CrawlReader {
  /** url → sitemap lastmod of every stored page of a target host (partial crawls compare them). */
  sitemapLastmods(host: string): Map<string, string | null>;
  /** The fragment targets stored with a page by an earlier crawl (check_fragments), or null. */
  pageAnchors(url: string): string[] | null;
  /** Whether a link URL's stored outcome is ok and was checked at or after `since` (ISO 8601): the external link cache. */
  okCheckedSince(url: string, since: string): boolean;
  /** A stored page's validators, body hash, settings key and found links (what a conditional re-crawl needs), or null. */
  revisit(url: string): StoredRevisit | null;
}

/** How one target's share of a crawl ended: the backend's clearing rule decides from this. */
export interface TargetResult {
  host: string;
  /** Pages stored by this crawl. */
  pages: number;
  /** max_pages (or a sitemap cap) cut it short; never set by a stop. */
  cutByMaxPages: boolean;
  /** None of its seeds (start paths or sitemap pages) could be fetched, or robots.txt/sitemaps failed and nothing was. */
  unreachable: boolean;
  /** The first failure that made it unreachable, one line; null when reachable. */
  error: string | null;
}
