// Batches what a crawl found into few store transactions: one commit per batch of pages and outcomes keeps
// crawling fast, and bounds memory (a batch holds at most a few MB of page text).
import { removePagesByUrl, saveOutcomes, savePages, touchPages, type OutcomeWrite, type PageWrite } from '../backend/store/pages.js';
import type { Store } from '../backend/store/store.js';

export interface WriterLimits {
  pages?: number;
  outcomes?: number;
  /** Characters of page content held before a flush. */
  contentChars?: number;
}

export class CrawlWriter {
  private pages: PageWrite[] = [];
  private outcomes: OutcomeWrite[] = [];
  private touched: string[] = [];
  private removed: string[] = [];
  private contentChars = 0;
  private readonly maxPages: number;
  private readonly maxOutcomes: number;
  private readonly maxContent: number;

  constructor(
    private readonly store: Store,
    private readonly crawlId: number,
    limits: WriterLimits = {},
  ) {
    this.maxPages = limits.pages ?? 100;
    this.maxOutcomes = limits.outcomes ?? 1000;
    this.maxContent = limits.contentChars ?? 8_000_000;
  }

  page(p: PageWrite): void {
    this.pages.push(p);
    this.contentChars += p.content.length;
    if (this.pages.length >= this.maxPages || this.contentChars >= this.maxContent) this.flush();
  }

  outcome(o: OutcomeWrite): void {
    this.outcomes.push(o);
    if (this.outcomes.length >= this.maxOutcomes) this.flush();
  }

  /** The page stays as stored but counts as seen by this crawl. */
  touch(url: string): void {
    this.touched.push(url);
    if (this.touched.length >= this.maxOutcomes) this.flush();
  }

  /** The stored page under this URL goes (it is gone, or now redirects). */
  remove(url: string): void {
    this.removed.push(url);
    if (this.removed.length >= this.maxOutcomes) this.flush();
  }

  get pending(): number {
    return this.pages.length + this.outcomes.length + this.touched.length + this.removed.length;
  }

  /** Writes everything held, in one transaction. */
  flush(): void {
    if (!this.pending) return;
    const { pages, outcomes, touched, removed } = this;
    this.pages = [];
    this.outcomes = [];
    this.touched = [];
    this.removed = [];
    this.contentChars = 0;
    this.store.tx(() => {
      removePagesByUrl(this.store, removed);
      savePages(this.store, pages);
      touchPages(this.store, touched, this.crawlId);
      saveOutcomes(this.store, outcomes);
    });
  }
}
