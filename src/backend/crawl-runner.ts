// STUB — owned by the crawler work (issue 2). Runs crawls of one project in the background, one at a time.
import type { TargetConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { BackendError } from './errors.js';
import type { Store } from './store/store.js';
import type { CrawlRecord, CrawlRequest } from './types.js';

export interface CrawlRunnerOptions {
  store: Store;
  project: string;
  targets: TargetConfig[];
  logger: Logger;
}

export class CrawlRunner {
  constructor(readonly opts: CrawlRunnerOptions) {}

  /** Validates the request, creates the record, starts the crawl in the background, answers at once. */
  start(_req: CrawlRequest): CrawlRecord {
    throw new BackendError('not_implemented', 'crawling is not implemented yet');
  }

  /** Resolves with the final record when crawl `id` ends. */
  async wait(_id: number): Promise<CrawlRecord> {
    throw new BackendError('not_implemented', 'crawling is not implemented yet');
  }

  onEnded(_listener: (record: CrawlRecord) => void): () => void {
    return () => {};
  }

  /** Stops running crawls (status `stopped`) and waits for them to settle. */
  async stopAll(): Promise<void> {}
}
