// What the crawler writes to and reads from, defined here so the crawler needs no database: the backend hands it
// the store's batched writer and a reader of what is stored (lastmods, anchors, outcomes, a page's validators and
// found links for a conditional re-crawl); tests hand it plain objects.

// Defined in the model so that a store can make them (the crawler never imports the store).
export type { CrawlReader, CrawlSink } from '../model/crawl-writes.js';

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
