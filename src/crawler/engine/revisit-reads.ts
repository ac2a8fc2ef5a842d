// The stored revisit rows of a crawl's pages, read for a batch of queued pages at once: one query per batch instead
// of one per page, ahead of the batch's fetches (on PostgreSQL a round trip saved per page; on SQLite the rows of a
// batch are read before the writer's next commit makes the reader go back to the file).
import type { StoredRevisit } from '../../model/crawl-writes.js';
import type { CrawlReader } from '../sink.js';

/** Pages whose stored rows one query reads: the page asked for and those queued after it. */
export const REVISIT_BATCH = 64;

export class RevisitReads {
  /** URL → the read in flight or done that holds its row; each is taken once. */
  private readonly reads = new Map<string, Promise<Map<string, StoredRevisit>>>();

  constructor(private readonly reader: CrawlReader) {}

  /**
   * The stored revisit row of `url`, or null. When no earlier read holds it, one query reads it with those of
   * `upcoming` (the URLs queued next) that no read holds yet.
   */
  take(url: string, upcoming: () => readonly string[]): Promise<StoredRevisit | null> {
    let read = this.reads.get(url);
    if (read) this.reads.delete(url);
    else {
      const ahead = upcoming().filter((next) => next !== url && !this.reads.has(next));
      read = this.reader.revisits([url, ...ahead]);
      for (const next of ahead) this.reads.set(next, read);
    }
    return read.then((rows) => rows.get(url) ?? null);
  }
}
