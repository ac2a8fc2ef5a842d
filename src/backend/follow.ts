// Following a crawl until it ends: what `svc crawl`, `svc-get-crawl` with wait_seconds and /v1 callers need, for
// a crawl run anywhere (this process, another process on the same database, a remote service).
import { setTimeout as sleep } from 'node:timers/promises';
import { BackendError } from '../model/errors.js';
import { crawlEnded, type CrawlProgress, type CrawlRecord } from '../model/types.js';

export interface FollowOptions {
  /** Stop waiting after this long (the crawl goes on); default: until it ends. */
  timeoutMs?: number;
  /** Live progress while it runs, at least every `pollMs`. */
  onProgress?: (p: CrawlProgress) => void;
  /** Stops waiting (the crawl goes on). */
  signal?: AbortSignal;
}

/** Progress as a crawl record shows it (for a crawl this process does not run). */
export function progressOfRecord(rec: CrawlRecord, now = Date.now()): CrawlProgress {
  const started = rec.startedAt ? Date.parse(rec.startedAt) : now;
  return {
    pagesDone: rec.stats.pages,
    queued: 0,
    errors: rec.stats.errors,
    linksChecked: rec.stats.links,
    requests: 0,
    elapsedMs: Math.max(0, now - started),
    stats: rec.stats,
  };
}

/** Polls `read` until the crawl ends, the time is up or the signal fires; answers the last record read. */
export async function pollCrawl(
  id: number,
  read: (id: number) => Promise<CrawlRecord | null>,
  opts: FollowOptions,
  pollMs: number,
): Promise<CrawlRecord> {
  const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
  for (;;) {
    const rec = await read(id);
    if (!rec) throw new BackendError('not_found', `crawl ${id} not found`);
    if (crawlEnded(rec.status) || opts.signal?.aborted) return rec;
    opts.onProgress?.(progressOfRecord(rec));
    const left = deadline - Date.now();
    if (left <= 0) return rec;
    try {
      await sleep(Math.min(pollMs, left), undefined, { signal: opts.signal });
    } catch {
      // the caller stopped waiting
    }
  }
}
