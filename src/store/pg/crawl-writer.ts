// The CrawlSink on PostgreSQL: what a crawl finds is batched as the SQLite CrawlWriter batches it, and each batch is
// committed in one transaction while the crawl goes on (the database does the work on its own connection, so no
// writer thread is needed). Batches commit one after the other, in order; at most `inFlight` wait before the crawl
// is made to (settle), so memory stays bounded when pages come faster than commits.
import type { KeepWrite, OutcomeWrite, PageWrite } from '../../model/crawl-writes.js';
import type { CrawlStats } from '../../model/types.js';
import type { Sql } from '../sql.js';
import type { WriteBatch, WriterLimits } from '../writer.js';
import { keepPages, removePagesByUrl, saveOutcomes, savePages, touchPages, updateCrawlStats } from './writes.js';

/** One transaction for a whole batch, in the order of the SQLite writeBatch. */
export function writeBatch(sql: Sql, b: WriteBatch): Promise<void> {
  return sql.tx(async (tx) => {
    await removePagesByUrl(tx, b.removed);
    await savePages(tx, b.pages);
    await keepPages(tx, b.kept);
    await touchPages(tx, b.touched, b.crawlId);
    await saveOutcomes(tx, b.outcomes);
    if (b.stats) await updateCrawlStats(tx, b.crawlId, b.stats);
  });
}

/** A crawl's sink (the crawler's CrawlSink, which the store may not import: the shape is the contract). */
export class PgCrawlWriter {
  private batch: WriteBatch;
  private contentChars = 0;
  private readonly maxPages: number;
  private readonly maxOutcomes: number;
  private readonly maxContent: number;
  private readonly maxInFlight: number;
  /** The last batch handed over: the next one commits after it. */
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  private error: Error | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly crawlId: number,
    limits: WriterLimits = {},
  ) {
    this.maxPages = limits.pages ?? 100;
    this.maxOutcomes = limits.outcomes ?? 2000;
    this.maxContent = limits.contentChars ?? 8_000_000;
    this.maxInFlight = limits.inFlight ?? 3;
    this.batch = this.empty();
  }

  page(p: PageWrite): void {
    this.batch.pages.push(p);
    this.contentChars += p.content.length;
    if (this.batch.pages.length >= this.maxPages || this.contentChars >= this.maxContent) this.flush();
  }

  outcome(o: OutcomeWrite): void {
    this.batch.outcomes.push(o);
    if (this.batch.outcomes.length >= this.maxOutcomes) this.flush();
  }

  touch(url: string): void {
    this.batch.touched.push(url);
    if (this.batch.touched.length >= this.maxOutcomes) this.flush();
  }

  keep(k: KeepWrite): void {
    this.batch.kept.push(k);
    if (this.batch.kept.length >= this.maxOutcomes) this.flush();
  }

  remove(url: string): void {
    this.batch.removed.push(url);
    if (this.batch.removed.length >= this.maxOutcomes) this.flush();
  }

  stats(s: CrawlStats): void {
    this.batch.stats = s;
  }

  /** Hands the held writes over: they commit after the batches before them. */
  flush(): void {
    this.throwIfFailed();
    const b = this.batch;
    if (!b.pages.length && !b.outcomes.length && !b.touched.length && !b.kept.length && !b.removed.length && !b.stats) return;
    this.batch = this.empty();
    this.contentChars = 0;
    this.inFlight++;
    this.chain = this.chain.then(async () => {
      try {
        // After a failure nothing more is written: the crawl is told at its next settle or drain.
        if (!this.error) await writeBatch(this.sql, b);
      } catch (err) {
        this.error ??= new Error(`writing crawl results failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      } finally {
        this.inFlight--;
        this.wake();
      }
    });
  }

  /** Waits while more than `inFlight` batches are waiting to commit; throws when a batch failed. */
  async settle(): Promise<void> {
    while (this.inFlight > this.maxInFlight && !this.error) await new Promise<void>((r) => this.waiters.push(r));
    this.throwIfFailed();
  }

  /** Flushes and waits until everything is committed. */
  async drain(): Promise<void> {
    this.flush();
    while (this.inFlight && !this.error) await new Promise<void>((r) => this.waiters.push(r));
    this.throwIfFailed();
  }

  /** Waits for the batch being written (a failed one has rolled back); what is held and not flushed is dropped. */
  async close(): Promise<void> {
    await this.chain;
  }

  private throwIfFailed(): void {
    if (this.error) throw this.error;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }

  private empty(): WriteBatch {
    return { crawlId: this.crawlId, pages: [], outcomes: [], touched: [], kept: [], removed: [] };
  }
}
