// Batches what a crawl found into few store transactions: one commit per batch of pages and outcomes keeps
// crawling fast and bounds memory (a batch holds at most a few MB of page text). With a compiled worker
// script the commits happen on a writer thread with its own connection, beside the crawling; otherwise here.
import { Worker } from 'node:worker_threads';
import { crawlStatsStatement } from './crawls.js';
import { keepPages, removePagesByUrl, saveOutcomes, savePages, touchPages } from './pages.js';
import type { CrawlStats } from '../model/types.js';
import type { Store } from './store.js';
import { WORKER_LIMITS, workerScript } from '../lib/workers.js';
import { type KeepWrite, type OutcomeWrite, type PageWrite } from '../model/crawl-writes.js';

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
}

/** One transaction for a whole batch. */
export function writeBatch(store: Store, b: WriteBatch): void {
  store.tx(() => {
    removePagesByUrl(store, b.removed);
    savePages(store, b.pages);
    keepPages(store, b.kept);
    touchPages(store, b.touched, b.crawlId);
    saveOutcomes(store, b.outcomes);
    if (b.stats) {
      const st = crawlStatsStatement(b.crawlId, b.stats);
      store.prepare(st.sql).run(...st.params);
    }
  });
}

export interface WriterLimits {
  pages?: number;
  outcomes?: number;
  /** Characters of page content held before a flush. */
  contentChars?: number;
  /** Batches handed to the writer thread and not yet committed before callers are made to wait. */
  inFlight?: number;
}

export class CrawlWriter {
  private batch: WriteBatch;
  private contentChars = 0;
  private readonly maxPages: number;
  private readonly maxOutcomes: number;
  private readonly maxContent: number;
  private readonly maxInFlight: number;
  private worker: Worker | null = null;
  private seq = 0;
  /** Sequence numbers of batches sent to the writer thread and not yet committed. */
  private readonly inFlight = new Set<number>();
  private waiters: (() => void)[] = [];
  private error: Error | null = null;
  /** Without a writer thread: the batches committing here, one after the other, through the connection's Sql. */
  private local: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly crawlId: number,
    limits: WriterLimits & { threaded?: boolean } = {},
  ) {
    this.maxPages = limits.pages ?? 100;
    this.maxOutcomes = limits.outcomes ?? 2000;
    this.maxContent = limits.contentChars ?? 8_000_000;
    this.maxInFlight = limits.inFlight ?? 3;
    this.batch = this.empty();
    const script = limits.threaded !== false && store.path !== ':memory:' ? workerScript('writer-worker', import.meta.url) : null;
    if (script) {
      this.worker = new Worker(script, { workerData: { path: store.path }, resourceLimits: WORKER_LIMITS });
      this.worker.on('message', (m: { seq: number; error?: string }) => {
        if (m.error) this.error ??= new Error(`writing crawl results failed: ${m.error}`);
        this.inFlight.delete(m.seq);
        this.wake();
      });
      this.worker.on('error', (err) => {
        this.error ??= err;
        this.inFlight.clear();
        this.wake();
      });
    }
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

  /** Hands the held writes over: committed here at once, or sent to the writer thread. */
  flush(): void {
    this.throwIfFailed();
    const b = this.batch;
    if (!b.pages.length && !b.outcomes.length && !b.touched.length && !b.kept.length && !b.removed.length && !b.stats) return;
    this.batch = this.empty();
    this.contentChars = 0;
    if (!this.worker) return this.commitHere(b);
    const seq = ++this.seq;
    this.inFlight.add(seq);
    this.worker.postMessage({ seq, batch: b });
  }

  /**
   * A batch committed on this thread: synchronous SQL, but inside a transaction of the connection's Sql, so it waits
   * for (and never lands inside) a transaction another caller has open on the same connection.
   */
  private commitHere(b: WriteBatch): void {
    this.inFlight.add(++this.seq);
    const seq = this.seq;
    this.local = this.local
      .then(() => this.store.sql.tx(async () => writeBatch(this.store, b)))
      .catch((err: unknown) => {
        this.error ??= err instanceof Error ? err : new Error(String(err));
      })
      .finally(() => {
        this.inFlight.delete(seq);
        this.wake();
      });
  }

  /** Waits while the writer is behind (keeps memory bounded when pages come faster than commits). */
  async settle(): Promise<void> {
    while (this.inFlight.size > this.maxInFlight && !this.error) await new Promise<void>((r) => this.waiters.push(r));
    this.throwIfFailed();
  }

  /** Flushes and waits until everything is committed. */
  async drain(): Promise<void> {
    this.flush();
    while (this.inFlight.size && !this.error) await new Promise<void>((r) => this.waiters.push(r));
    this.throwIfFailed();
  }

  /** Ends the writer thread: cleanly when everything was committed, at once otherwise (SQLite rolls the open transaction back). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    if (this.inFlight.size || this.error) {
      await w.terminate();
      return;
    }
    const exited = new Promise<void>((r) => w.once('exit', () => r()));
    w.postMessage({ seq: ++this.seq, close: true });
    const timer = setTimeout(() => void w.terminate(), 5000);
    await exited;
    clearTimeout(timer);
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
