// One connection to the SQLite file with everything every connection needs, and no more: WAL, the PRAGMAs, the
// functions the full-text index's triggers call, prepared statements kept per connection, immediate transactions.
// The Store builds on it; the writer thread opens one alone, so it loads neither the search code nor the schemas.
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { makeDatabaseFilesPrivate, makePrivateDir } from '../private-files.js';
import { registerTermFunctions } from '../search-index/terms.js';

export type Db = Database.Database;

/** How a connection is opened. */
export interface SqliteConnectionOptions {
  readonly?: boolean;
  cacheKb?: number;
  busyTimeoutMs?: number;
}

export class SqliteConnection {
  readonly db: Db;
  readonly readonly: boolean;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    readonly path: string,
    opts: SqliteConnectionOptions = {},
  ) {
    const onDisk = path !== ':memory:' && !opts.readonly;
    if (onDisk) makePrivateDir(dirname(path));
    this.db = new Database(path, { readonly: opts.readonly ?? false });
    // Before WAL mode makes the -wal and -shm files: SQLite gives them the database file's mode.
    if (onDisk) makeDatabaseFilesPrivate(path);
    this.readonly = opts.readonly ?? false;
    // A read-only connection cannot set the journal mode (the file already has it).
    if (!this.readonly) this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    this.db.pragma(`cache_size = -${opts.cacheKb ?? 32000}`);
    // A statement inside a transaction journals the pages it changes (to undo itself alone): in memory, not spilled
    // to a temporary file past 64 KiB (the index move after a crawl's report wrote ~2,000 pages there).
    this.db.pragma('temp_store = MEMORY');
    // The full-text index's triggers compute a page's stems in JS: every connection that may write pages needs them.
    registerTermFunctions(this.db);
  }

  /** A prepared statement, compiled once per connection: for queries on per-request paths. */
  prepare(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /** Runs fn inside one transaction (IMMEDIATE: takes the write lock up front). */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /**
   * Runs fn inside the transaction already open on this connection (no savepoint), or in a new one. A savepoint makes
   * SQLite copy every page it changes to a statement journal first (a batch's writes: ~20 pages copied per page
   * stored); the caller's transaction rolls back whole anyway when fn throws.
   */
  inTx<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.tx(fn);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
