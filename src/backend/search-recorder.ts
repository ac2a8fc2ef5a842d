// Records each search answered for search analytics, off the search's path: a search only appends its terms and
// hit count to a list in memory; the list is normalized and written in one transaction a second later (or at once
// when it is long, and when the backend closes or someone reads the analytics). A search therefore never waits on
// a write, and a write that fails loses at most that batch of records (logged), never an answer. Searches recorded
// in the last second before a crash are lost; that is the price of not writing on every search.
import type { Logger } from '../lib/log.js';
import { retentionStart } from '../model/search-stats.js';
import { pruneSearchStats, recordSearches, type SearchRecord } from '../store/search-stats.js';
import { recordedTerms } from '../store/search/recorded-terms.js';
import type { Sql } from '../store/sql.js';

/** How long a search waits in memory before its batch is written. */
export const RECORD_FLUSH_MS = 1000;
/** A list this long is written at once. */
export const RECORD_BATCH_MAX = 500;
/** Searches held while the database does not answer; later ones are not recorded (counted in a warning). */
export const RECORD_PENDING_MAX = 10_000;
/** Old records are deleted at most this often by the recorder (and after each crawl, with the other histories). */
const PRUNE_EVERY_MS = 3_600_000;

export interface SearchRecorderOptions {
  sql: Sql;
  project: string;
  /** search_stats.retention_days; 0 records nothing. */
  retentionDays: number;
  logger: Logger;
  /** The clock (ms since the epoch); tests move it. */
  now?: () => number;
}

export class SearchRecorder {
  private pending: { terms: string; hits: number; at: number }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private dropped = 0;
  private prunedAt = -Infinity;
  private readonly now: () => number;

  constructor(private readonly opts: SearchRecorderOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Notes one search answered (`terms` as typed, `hits` its total); never throws, never waits. */
  record(terms: string, hits: number): void {
    if (this.opts.retentionDays === 0) return;
    if (this.pending.length >= RECORD_PENDING_MAX) {
      this.dropped++;
      return;
    }
    this.pending.push({ terms, hits, at: this.now() });
    if (this.pending.length >= RECORD_BATCH_MAX) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), RECORD_FLUSH_MS).unref();
  }

  /** Writes what is pending (after any write under way); resolves when it is written or has failed (logged). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  private async write(batch: readonly { terms: string; hits: number; at: number }[]): Promise<void> {
    const { sql, project, logger, retentionDays } = this.opts;
    const records: SearchRecord[] = [];
    for (const b of batch) {
      const terms = recordedTerms(b.terms);
      if (terms) records.push({ terms, hits: b.hits, at: new Date(b.at).toISOString() });
    }
    try {
      await recordSearches(sql, project, records);
      const now = this.now();
      if (now - this.prunedAt >= PRUNE_EVERY_MS) {
        this.prunedAt = now;
        await pruneSearchStats(sql, project, retentionStart(now, retentionDays));
      }
    } catch (err) {
      logger.warn(
        { err, searches: records.length },
        'search analytics: recording searches failed; they are not counted',
      );
    }
    if (this.dropped) {
      logger.warn(
        { searches: this.dropped },
        'search analytics: too many searches waiting to be recorded; some were not',
      );
      this.dropped = 0;
    }
  }
}
