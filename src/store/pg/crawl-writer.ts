// The CrawlSink on PostgreSQL: what a crawl finds is batched as the SQLite CrawlWriter batches it, and each batch is
// committed in one transaction while the crawl goes on (the database does the work on its own connection, so no
// writer thread is needed). Batches commit one after the other, in order; at most `inFlight` wait before the crawl
// is made to (settle), so memory stays bounded when pages come faster than commits.
import { orIfUnknown, type Sql } from '../sql.js';
import { BatchedCrawlWriter, type WriteBatch, type WriterLimits } from '../write-batches.js';
import { SeenWords } from './search-words.js';
import { keepPages, removePagesByUrl, saveOutcomes, savePages, touchPages, updateCrawlStats } from './writes.js';

/** One transaction for a whole batch, in the order of the SQLite writeBatch. */
export function writeBatch(sql: Sql, b: WriteBatch, seen?: SeenWords): Promise<void> {
  return sql.tx(async (tx) => {
    await removePagesByUrl(tx, b.removed);
    await savePages(tx, b.pages, b.deferIndex, seen);
    await keepPages(tx, b.kept);
    await touchPages(tx, b.touched, b.crawlId);
    await saveOutcomes(tx, b.outcomes);
    if (b.stats) await updateCrawlStats(tx, b.crawlId, b.stats);
  });
}

/** Batches commit one after the other, over the pool: no writer thread is needed. */
export class PgCrawlWriter extends BatchedCrawlWriter {
  /** The last batch handed over: the next one commits after it. */
  private chain: Promise<void> = Promise.resolve();
  /** The search words this writer has added (pg/search-words.ts). */
  private readonly words = new SeenWords();

  constructor(
    private readonly sql: Sql,
    crawlId: number,
    limits: WriterLimits = {},
  ) {
    super(crawlId, limits);
  }

  protected commit(b: WriteBatch): void {
    this.chain = this.chain.then(async () => {
      // After a failure nothing more is written: the crawl is told at its next settle or drain.
      if (this.error) return this.committed();
      try {
        // A batch whose COMMIT's answer was lost (PostgreSQL restarted under it) is written again: its writes are
        // upserts by URL and counts set, not added, so twice is once. Its words all go again (ON CONFLICT DO NOTHING):
        // the first try marked them sent whether or not they were written.
        await orIfUnknown(
          () => writeBatch(this.sql, b, this.words),
          () => writeBatch(this.sql, b),
        );
        this.committed();
      } catch (err) {
        this.committed(
          new Error(`writing crawl results failed: ${err instanceof Error ? err.message : String(err)}`, {
            cause: err,
          }),
        );
      }
    });
  }

  /** Waits for the batch being written (a failed one has rolled back); what is held and not flushed is dropped. */
  async close(): Promise<void> {
    await this.chain;
  }
}
