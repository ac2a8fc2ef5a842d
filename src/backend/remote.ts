// STUB — owned by the REST work (issue 4). The Backend as an undici client of another service's /v1 API.
import type { Logger } from '../log.js';
import type { Backend } from './backend.js';
import { BackendError } from './errors.js';
import type { CrawlRecord, DeletePagesResult, LinkReport, SearchResults } from './types.js';

export interface RemoteBackendOptions {
  baseUrl: string;
  apiKey: string;
  publicToken: string;
  logger: Logger;
  timeoutMs?: number;
}

export class RemoteBackend implements Backend {
  readonly kind = 'remote' as const;
  readonly publicToken: string;
  constructor(readonly opts: RemoteBackendOptions) {
    this.publicToken = opts.publicToken;
  }
  private nope(): never {
    throw new BackendError('not_implemented', 'the remote backend is not implemented yet');
  }
  async startCrawl(): Promise<CrawlRecord> { return this.nope(); }
  async getCrawl(): Promise<CrawlRecord | null> { return this.nope(); }
  async listCrawls(): Promise<CrawlRecord[]> { return this.nope(); }
  async linkReport(): Promise<LinkReport> { return this.nope(); }
  async search(): Promise<SearchResults> { return this.nope(); }
  async deletePages(): Promise<DeletePagesResult> { return this.nope(); }
  onCrawlEnded(): () => void { return () => {}; }
  async close(): Promise<void> {}
}
