// What a crawl writes, gathered into batches: one commit per batch of pages and outcomes keeps crawling fast and
// bounds memory (a batch holds at most a few MB of page text). Each database commits the batches its own way (SQLite
// on a writer thread, PostgreSQL over its pool); the gathering and the waiting are the same and live here.
import type { KeepWrite, OutcomeWrite, PageWrite } from '../model/crawl-writes.js';
import type { CrawlStats } from '../model/types.js';

export interface WriteBatch {
  crawlId: number;
  pages: PageWrite[];
  outcomes: OutcomeWrite[];
  /** Stored pages that count as seen without being rewritten. */
  touched: string[];
  /** Stored pages found unchanged: seen and checked now, nothing indexed rewritten. */
  kept: KeepWrite[];
  /** Stored pages that go (gone, or now a redirect). */
  removed: string[];
  /** The crawl's live stats, committed with the batch so the crawling thread never waits for the write lock. */
  stats?: CrawlStats;
  /** The pages' searchable columns wait in page_index_pending until the crawl's report is final. */
  deferIndex: boolean;
}

export interface WriterLimits {
  pages?: number;
  outcomes?: number;
  /** Characters of page content held before a flush. */
  contentChars?: number;
  /** Batches handed over and not yet committed before callers are made to wait. */
  inFlight?: number;
  /** Pages written leave the search index as it is until the crawl finishes it (see pending-index.ts). */
  deferIndex?: boolean;
}

/** A crawl's sink (the crawler's CrawlSink, which the store may not import: the shape is the contract). */
export abstract class BatchedCrawlWriter {
  private batch: WriteBatch;
  private contentChars = 0;
  private readonly maxPages: number;
  private readonly maxOutcomes: number;
  private readonly maxContent: number;
  private readonly maxInFlight: number;
  private readonly deferIndex: boolean;
  /** Batches handed over and not yet committed (or failed). */
  protected inFlight = 0;
  private waiters: (() => void)[] = [];
  protected error: Error | null = null;

  constructor(
    protected readonly crawlId: number,
    limits: WriterLimits = {},
  ) {
    this.maxPages = limits.pages ?? 100;
    this.maxOutcomes = limits.outcomes ?? 2000;
    this.maxContent = limits.contentChars ?? 8_000_000;
    this.maxInFlight = limits.inFlight ?? 3;
    this.deferIndex = limits.deferIndex ?? false;
    this.batch = this.empty();
  }

  /** Commits `b` after the batches handed over before it, then calls `committed` (with the error when it failed). */
  protected abstract commit(b: WriteBatch): void;

  abstract close(): Promise<void>;

  page(p: PageWrite): void {
    this.batch.pages.push(p);
    this.contentChars += p.content.length + (p.markdown?.length ?? 0);
    if (this.batch.pages.length >= this.maxPages || this.contentChars >= this.maxContent) this.flush();
  }

  outcome(o: OutcomeWrite): void {
    this.batch.outcomes.push(o);
    if (this.batch.outcomes.length >= this.maxOutcomes) this.flush();
  }

  /** The page stays as stored but counts as seen by this crawl. */
  touch(url: string): void {
    this.batch.touched.push(url);
    if (this.batch.touched.length >= this.maxOutcomes) this.flush();
  }

  /** A stored page found unchanged: it stays as it is, seen and checked by this crawl. */
  keep(k: KeepWrite): void {
    this.batch.kept.push(k);
    if (this.batch.kept.length >= this.maxOutcomes) this.flush();
  }

  /** The stored page under this URL goes (it is gone, or now redirects). */
  remove(url: string): void {
    this.batch.removed.push(url);
    if (this.batch.removed.length >= this.maxOutcomes) this.flush();
  }

  /** Live stats to commit with the next batch. */
  stats(s: CrawlStats): void {
    this.batch.stats = s;
  }

  /** Hands the held writes over: they commit after the batches before them. */
  flush(): void {
    this.throwIfFailed();
    const b = this.batch;
    if (!b.pages.length && !b.outcomes.length && !b.touched.length && !b.kept.length && !b.removed.length && !b.stats)
      return;
    this.batch = this.empty();
    this.contentChars = 0;
    this.inFlight++;
    this.commit(b);
  }

  /** Waits while the writer is behind (keeps memory bounded when pages come faster than commits); throws when a batch failed. */
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

  /** One handed-over batch is committed, or failed with `error` (the first failure is what the crawl is told). */
  protected committed(error?: Error): void {
    if (error) this.error ??= error;
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.wake();
  }

  /** Nothing handed over will commit any more (the writer itself failed). */
  protected failed(error: Error): void {
    this.error ??= error;
    this.inFlight = 0;
    this.wake();
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
    return {
      crawlId: this.crawlId,
      pages: [],
      outcomes: [],
      touched: [],
      kept: [],
      removed: [],
      deferIndex: this.deferIndex,
    };
  }
}
