// The link report's local cache: the report only changes when the site is crawled, so a
// result is reused for up to 15 minutes per (target, limit, reasons, since, cursor). One cache serves one project's functions. Only
// successes are stored.
import { LRUCache } from 'lru-cache';
import type { LinkReport } from '../model/types.js';

export const LINK_REPORT_TTL_MS = 15 * 60 * 1000;

export interface LinkReportCacheOptions {
  ttlMs?: number;
  /** Milliseconds; injectable so tests can move time. */
  now?: () => number;
  maxEntries?: number;
}

export interface LinkReportKey {
  target: string | null;
  limit: number;
  /** The reasons filter; null for all. */
  reasons?: readonly string[] | null;
  /** The since filter; null for none. */
  since?: string | null;
  /** The page's cursor; null for the first. */
  cursor?: string | null;
}

export class LinkReportCache {
  private readonly lru: LRUCache<string, LinkReport>;

  constructor(opts: LinkReportCacheOptions = {}) {
    const now = opts.now ?? (() => Date.now());
    // ttlResolution 0: ask the clock on every read, so an injected clock is honoured exactly.
    this.lru = new LRUCache<string, LinkReport>({
      max: opts.maxEntries ?? 200,
      ttl: opts.ttlMs ?? LINK_REPORT_TTL_MS,
      ttlResolution: 0,
      perf: { now },
    });
  }

  private static key(k: LinkReportKey): string {
    return JSON.stringify([
      k.target,
      k.limit,
      k.reasons ? [...k.reasons].sort() : null,
      k.since ?? null,
      k.cursor ?? null,
    ]);
  }

  get(k: LinkReportKey): LinkReport | undefined {
    return this.lru.get(LinkReportCache.key(k));
  }

  set(k: LinkReportKey, report: LinkReport): void {
    this.lru.set(LinkReportCache.key(k), report);
  }

  /** Forgets every entry (a crawl ended, or pages were deleted). */
  clear(): void {
    this.lru.clear();
  }
}
