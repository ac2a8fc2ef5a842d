// What the service holds of its database: one interface, two implementations (SQLite, the embedded default, in
// sqlite/store.ts; PostgreSQL when database_url is set). Everything portable goes through `sql` and the store functions
// written against it (crawls, pages, history, webhooks, users, keys, OAuth, posts, schedule, report); what each
// engine does its own way is a member here: full-text search, the crawl writer, the store's own lifecycle.
import type { CrawlReader, CrawlSink } from '../model/crawl-writes.js';
import type { SearchParams, SearchResults } from '../model/types.js';
import type { SearchScope } from './search/pipeline.js';
import type { Dialect, Sql } from './sql.js';

export type { SearchScope };

export interface CrawlWriterOptions {
  /** Commit beside the crawling (SQLite: a writer thread with its own connection) when the engine can; default true. */
  threaded?: boolean;
  /**
   * The pages' searchable columns wait aside until finishPendingIndex (the crawl's report first, then its index);
   * default false: indexed as written.
   */
  deferIndex?: boolean;
}

export interface ServiceStore {
  readonly dialect: Dialect;
  /** The asynchronous interface every portable store function takes. */
  readonly sql: Sql;
  /** Opened for reading only (read commands on a data directory they may not write): nothing is written or cleaned. */
  readonly readonly: boolean;
  /** Where the data lives, for messages: the database file, or the server (never a password). */
  readonly location: string;
  /** Crawls found queued or running at open whose owner had stopped beating: marked failed then. */
  readonly recoveredCrawls: readonly number[];
  /** Full-text search of the stored pages (SearchParams as the /v1 contract gives them; BackendError on bad input). */
  searchPages(terms: string, params: SearchParams | undefined, scope?: SearchScope): Promise<SearchResults>;
  /** What crawl `crawlId` writes to: batched, committed in few transactions. */
  openCrawlWriter(crawlId: number, opts?: CrawlWriterOptions): CrawlSink;
  /** What a crawl reads of what is stored (one query per call). */
  crawlReader(): CrawlReader;
  /**
   * While the database server does not answer (PostgreSQL: a restart, once the store has been ready): since when
   * (ms since the epoch) and what the last try met; statements wait for it meanwhile. Null, or absent, otherwise.
   */
  unavailable?(): { since: number; reason: string } | null;
  /**
   * When the database server last answered again after not answering (ms since the epoch); null or absent when it
   * never stopped. Heartbeats could not be written meanwhile: none is judged stale until a heartbeat limit later.
   */
  answeringAgainSince?(): number | null;
  /**
   * The space the project's data takes on disk, in bytes, and what was counted (SQLite: the database file and its
   * WAL; PostgreSQL: the tables and indexes of the project's schema, its share of the database).
   */
  sizeOnDisk(): Promise<{ bytes: number; counted: string }>;
  /** Lets go of the database (after the writers have drained); await it (SQLite closes at once). */
  close(): void | Promise<void>;
}
