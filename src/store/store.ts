// The SQLite store: one file, WAL, migrations at open, every multi-row write in one transaction.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { CRAWL_DEAD_AFTER_MS, failDeadCrawls } from './crawls.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export interface OpenStoreOptions {
  /** Path of the database file, or ':memory:'. */
  path: string;
  readonly?: boolean;
}

/** How a connection is opened: the defaults suit the process that owns the file (it migrates it). */
export interface StoreConnectionOptions {
  readonly?: boolean;
  /** false: the file is already migrated by its owner (a writer thread's second connection). */
  migrate?: boolean;
  cacheKb?: number;
  busyTimeoutMs?: number;
}

export class Store {
  readonly db: Db;
  /** Crawls found `running` or `queued` at open whose owner stopped beating 30 s ago or more: now `failed`. */
  readonly recoveredCrawls: number[];

  constructor(readonly path: string, opts: StoreConnectionOptions = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { readonly: opts.readonly ?? false });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    this.db.pragma(`cache_size = -${opts.cacheKb ?? 32000}`);
    this.recoveredCrawls = [];
    if (!opts.readonly && opts.migrate !== false) {
      migrate(this.db);
      this.recoveredCrawls = this.tx(() => failDeadCrawls(this, Date.now() - CRAWL_DEAD_AFTER_MS));
    }
  }

  private readonly statements = new Map<string, Database.Statement>();

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

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
}

export function openStore(opts: OpenStoreOptions): Store {
  return new Store(opts.path, { readonly: opts.readonly });
}
