// The SQLite store: one file, WAL, migrations at open, every multi-row write in one transaction.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';
import { registerTermFunctions } from './search-index/terms.js';

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
  /** Crawls found `running` or `queued` at open: their process died, so they are now `failed`. */
  readonly recoveredCrawls: number[];

  constructor(readonly path: string, opts: StoreConnectionOptions = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { readonly: opts.readonly ?? false });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    this.db.pragma(`cache_size = -${opts.cacheKb ?? 32000}`);
    // The full-text index's triggers compute a page's stems in JS: every connection that may write pages needs them.
    registerTermFunctions(this.db);
    this.recoveredCrawls = [];
    if (!opts.readonly && opts.migrate !== false) {
      migrate(this.db);
      this.recoveredCrawls = this.failDeadCrawls();
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

  private failDeadCrawls(): number[] {
    // Other processes may share the file (`svc serve` and `svc crawl`, say): only a crawl whose process is gone is dead.
    const rows = this.db.prepare(`SELECT id, owner_pid FROM crawls WHERE status IN ('running','queued')`).all() as { id: number; owner_pid: number | null }[];
    const dead = rows.filter((r) => !processAlive(r.owner_pid)).map((r) => r.id);
    const fail = this.db.prepare(
      `UPDATE crawls SET status = 'failed', finished_at = COALESCE(finished_at, ?), error = COALESCE(error, 'the process running this crawl ended before it finished') WHERE id = ? AND status IN ('running','queued')`,
    );
    const now = new Date().toISOString();
    this.tx(() => {
      for (const id of dead) fail.run(now, id);
    });
    return dead;
  }
}

function processAlive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
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
