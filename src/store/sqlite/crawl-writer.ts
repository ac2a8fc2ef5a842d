// A crawl's batches committed to SQLite: with a compiled worker script on a writer thread with its own connection,
// beside the crawling; otherwise here.
import { Worker } from 'node:worker_threads';
import { crawlStatsStatement } from '../crawls.js';
import { keepPages, removePagesByUrl, saveOutcomes, savePages, touchPages } from './writes.js';
import type { SqliteConnection } from './connection.js';
import type { Store } from './store.js';
import { WORKER_LIMITS, workerScript } from '../../lib/workers.js';
import { BatchedCrawlWriter, type WriteBatch, type WriterLimits } from '../write-batches.js';

/** One transaction for a whole batch (or part of the one open: on this thread, the Sql's; no savepoint). */
export function writeBatch(conn: SqliteConnection, b: WriteBatch): void {
  conn.inTx(() => {
    removePagesByUrl(conn, b.removed);
    savePages(conn, b.pages, b.deferIndex);
    keepPages(conn, b.kept);
    touchPages(conn, b.touched, b.crawlId);
    saveOutcomes(conn, b.outcomes);
    if (b.stats) {
      const st = crawlStatsStatement(b.crawlId, b.stats);
      conn.prepare(st.sql).run(...st.params);
    }
  });
}

export class CrawlWriter extends BatchedCrawlWriter {
  private worker: Worker | null = null;
  private seq = 0;
  /** Without a writer thread: the batches committing here, one after the other, through the connection's Sql. */
  private local: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    crawlId: number,
    limits: WriterLimits & { threaded?: boolean } = {},
  ) {
    super(crawlId, limits);
    const script =
      limits.threaded !== false && store.path !== ':memory:' ? workerScript('writer-worker', import.meta.url) : null;
    if (script) {
      this.worker = new Worker(script, { workerData: { path: store.path }, resourceLimits: WORKER_LIMITS });
      // The thread answers each batch once, in order.
      this.worker.on('message', (m: { seq: number; error?: string }) =>
        this.committed(m.error ? new Error(`writing crawl results failed: ${m.error}`) : undefined),
      );
      this.worker.on('error', (err) => this.failed(err));
    }
  }

  /** Committed here at once, or sent to the writer thread. */
  protected commit(b: WriteBatch): void {
    if (!this.worker) {
      this.commitHere(b);
      return;
    }
    this.worker.postMessage({ seq: ++this.seq, batch: b });
  }

  /**
   * A batch committed on this thread: synchronous SQL, but inside a transaction of the connection's Sql, so it waits
   * for (and never lands inside) a transaction another caller has open on the same connection.
   */
  private commitHere(b: WriteBatch): void {
    this.local = this.local.then(() =>
      this.store.sql
        .tx(async () => writeBatch(this.store, b))
        .then(
          () => this.committed(),
          (err: unknown) => this.committed(err instanceof Error ? err : new Error(String(err))),
        ),
    );
  }

  /** Ends the writer thread: cleanly when everything was committed, at once otherwise (SQLite rolls the open transaction back). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    if (this.inFlight || this.error) {
      await w.terminate();
      return;
    }
    const exited = new Promise<void>((r) => w.once('exit', () => r()));
    w.postMessage({ seq: ++this.seq, close: true });
    const timer = setTimeout(() => void w.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }
}
