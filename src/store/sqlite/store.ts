// The SQLite store: one file, WAL, migrations at open, every multi-row write in one transaction.
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CRAWL_DEAD_AFTER_MS, failDeadCrawlsStatement } from '../crawls.js';
import { APPLY_PENDING, DROP_PENDING, INDEX_CHUNK, MARK_LEFT_INDEXED, NEXT_PENDING_CHUNK } from '../pending-index.js';
import { migrate } from './migrations/index.js';
import type { Sql } from '../sql.js';
import { sqliteSql } from './sqlite-sql.js';
import type { CrawlReader, CrawlSink } from '../../model/crawl-writes.js';
import type { SearchParams, SearchResults } from '../../model/types.js';
import { crawlReaderOf } from '../pages.js';
import { searchPages } from '../search-index/search.js';
import type { SearchScope } from '../search/pipeline.js';
import type { CrawlWriterOptions, ServiceStore } from '../service-store.js';
import { CrawlWriter } from './crawl-writer.js';
import { SqliteConnection, type SqliteConnectionOptions } from './connection.js';

export type { Db } from './connection.js';

/** How the store opens its file: the defaults suit the process that owns the file (it migrates it). */
export interface StoreConnectionOptions extends SqliteConnectionOptions {
  /** false: the file is already migrated by its owner. */
  migrate?: boolean;
  deadAfterMs?: number;
  /** A private copy's directory, removed on close. */
  removeDirOnClose?: string;
}

export interface OpenStoreOptions {
  /** Path of the database file, or ':memory:'. */
  path: string;
  /** Read only (no migration, no clean-up of dead crawls): works in a data directory this process may not write. */
  readonly?: boolean;
  /** A crawl whose owner has not beaten for this long is dead (default CRAWL_DEAD_AFTER_MS). */
  deadAfterMs?: number;
}

/**
 * The SQLite store (the embedded default). Besides the ServiceStore members it keeps the raw connection for what is
 * SQLite's own: PRAGMAs, migrations, the FTS5 search index, the writer thread's synchronous batches, maintenance.
 */
export class Store extends SqliteConnection implements ServiceStore {
  readonly dialect = 'sqlite' as const;
  /** The asynchronous interface every store function is written against (one per connection). */
  readonly sql: Sql;
  /** Crawls found `running` or `queued` at open whose owner stopped beating 30 s ago or more: now `failed`. */
  readonly recoveredCrawls: number[];
  private readonly removeDirOnClose: string | null;

  constructor(path: string, opts: StoreConnectionOptions = {}) {
    super(path, opts);
    this.removeDirOnClose = opts.removeDirOnClose ?? null;
    this.sql = sqliteSql(this.db, (sql) => this.prepare(sql));
    this.recoveredCrawls = [];
    if (!opts.readonly && opts.migrate !== false) {
      migrate(this.db);
      // At open, before anything else uses the connection: synchronously, with the statement failDeadCrawls runs.
      const st = failDeadCrawlsStatement(Date.now() - (opts.deadAfterMs ?? CRAWL_DEAD_AFTER_MS));
      const ids = this.tx(() => (this.db.prepare(st.sql).all(...st.params) as { id: number }[]).map((r) => r.id));
      this.recoveredCrawls = ids.sort((a, b) => a - b);
      this.recoverPendingIndex();
    }
  }

  /**
   * At open, synchronously (as the recovery above): what a process that died between a crawl's report and its index
   * left pending goes into the index, unless a crawl of this database is running (its own finish does it).
   */
  private recoverPendingIndex(): void {
    if (this.db.prepare(`SELECT 1 FROM crawls WHERE status = 'running' LIMIT 1`).get()) return;
    if (!this.db.prepare('SELECT 1 FROM page_index_pending LIMIT 1').get()) return;
    for (;;) {
      const done = this.tx(() => {
        const { first, last } = this.db.prepare(NEXT_PENDING_CHUNK).get(INDEX_CHUNK) as {
          first: number | null;
          last: number | null;
        };
        if (first === null || last === null) return true;
        this.db.prepare(APPLY_PENDING).run(first, last);
        this.db.prepare(DROP_PENDING).run(last);
        return false;
      });
      if (done) break;
    }
    this.db.prepare(MARK_LEFT_INDEXED).run(new Date().toISOString());
  }

  get location(): string {
    return this.path;
  }

  async sizeOnDisk(): Promise<{ bytes: number; counted: string }> {
    // A page written since the last checkpoint is in the WAL, not yet in the file: both are the database.
    const size = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    return { bytes: size(this.path) + size(`${this.path}-wal`), counted: 'the database file and its WAL' };
  }

  /** Searches on a snapshot: the search's reads wait for a transaction open on this connection, as every caller's do. */
  searchPages(terms: string, params: SearchParams | undefined, scope: SearchScope = {}): Promise<SearchResults> {
    return this.sql.snapshot(async () => searchPages(this, terms, params, scope));
  }

  openCrawlWriter(crawlId: number, opts: CrawlWriterOptions = {}): CrawlSink {
    return new CrawlWriter(this, crawlId, { threaded: opts.threaded, deferIndex: opts.deferIndex });
  }

  crawlReader(): CrawlReader {
    return crawlReaderOf(this.sql);
  }

  override close(): void {
    super.close();
    if (this.removeDirOnClose) rmSync(this.removeDirOnClose, { recursive: true, force: true });
  }
}

/** The store as SQLite's, for what only SQLite has (its file, PRAGMAs, check/repair/backup); a clear error otherwise. */
export function sqliteStore(store: ServiceStore, what = 'this'): Store {
  if (store instanceof Store) return store;
  throw new Error(
    `${what} works on the SQLite store only: this service keeps its data in PostgreSQL (${store.location}; database_url / SVC_DATABASE_URL)`,
  );
}

export function openStore(opts: OpenStoreOptions): Store {
  if (opts.readonly) return openReadOnly(opts.path);
  return new Store(opts.path, { deadAfterMs: opts.deadAfterMs });
}

/**
 * A read-only connection, for read commands on a data directory they may not write. SQLite reads a WAL database only
 * where it can create the shared-memory file beside it; in a read-only directory the file (and its WAL) is read from a
 * private copy instead, removed when the store closes.
 */
function openReadOnly(path: string): Store {
  if (!existsSync(path))
    throw Object.assign(new Error(`no database at ${path}: nothing has been crawled into this data directory yet`), {
      code: 'ENOENT',
    });
  try {
    const store = new Store(path, { readonly: true });
    store.db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
    return store;
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (!/^SQLITE_(READONLY|CANTOPEN)/.test(code)) throw err;
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-readonly-'));
  const copy = join(dir, basename(path));
  copyFileSync(path, copy);
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
  const store = new Store(copy, { readonly: true, removeDirOnClose: dir });
  return store;
}
