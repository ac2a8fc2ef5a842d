// The Sql interface over one better-sqlite3 connection. The driver is synchronous, so every statement runs at once
// inside the returned promise; what the interface adds is the transaction discipline a single connection needs
// once callers await: while a transaction is open on a scope (the root, or a transaction for its savepoints),
// other callers of that scope wait for it, so nothing they do lands inside it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import { namedSqlError, type RunResult, type Sql, type SqlParams } from '../sql.js';

/** The connection's prepared statements, compiled once per SQL text. */
export type Prepare = (sql: string) => Database.Statement;

function bind(params: SqlParams | undefined): unknown[] {
  if (params === undefined) return [];
  return Array.isArray(params) ? params : [params];
}

/** The transaction whose fn is running in this async context (to tell a caller that would wait for itself). */
const current = new AsyncLocalStorage<Scope>();

class Scope implements Sql {
  readonly dialect = 'sqlite' as const;
  /** Set while a transaction (or snapshot) opened on this scope runs: this scope's other callers wait for it. */
  private gate: Promise<void> | null = null;
  private ended = false;

  constructor(
    private readonly db: Database.Database,
    private readonly prepare: Prepare,
    private readonly depth: number,
    private readonly parent: Scope | null,
  ) {}

  async get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    this.checkOpen();
    while (this.gate) await this.turn();
    try {
      return this.prepare(sql).get(...bind(params)) as T | undefined;
    } catch (err) {
      throw namedSqlError(err, sql);
    }
  }

  async all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    this.checkOpen();
    while (this.gate) await this.turn();
    try {
      return this.prepare(sql).all(...bind(params)) as T[];
    } catch (err) {
      throw namedSqlError(err, sql);
    }
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    this.checkOpen();
    while (this.gate) await this.turn();
    try {
      return { changes: this.prepare(sql).run(...bind(params)).changes };
    } catch (err) {
      throw namedSqlError(err, sql);
    }
  }

  async exec(sql: string): Promise<void> {
    this.checkOpen();
    while (this.gate) await this.turn();
    try {
      this.db.exec(sql);
    } catch (err) {
      throw namedSqlError(err, sql);
    }
  }

  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.open(fn, this.depth === 0 ? 'BEGIN IMMEDIATE' : `SAVEPOINT sp${this.depth}`);
  }

  rowTx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.tx(fn);
  }

  snapshot<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    // Inside a transaction the reads are consistent already.
    if (this.depth > 0) return this.inside(fn);
    return this.open(fn, 'BEGIN');
  }

  private async inside<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    this.checkOpen();
    while (this.gate) await this.turn();
    return fn(this);
  }

  private checkOpen(): void {
    if (this.ended) throw new Error('this transaction has ended: its Sql cannot be used any more');
  }

  /**
   * Waits for the transaction open on this scope to end. Callers loop until no gate is set and then act without
   * yielding: another waiter woken by the same end may have opened the next transaction first.
   */
  private turn(): Promise<void> {
    // A caller inside one of this scope's transactions (still open) would wait for itself for ever.
    for (let s: Scope | null = current.getStore() ?? null; s; s = s.parent) {
      if (s.parent === this && !s.ended)
        return Promise.reject(
          new Error(
            'the store was used inside its own transaction: use the Sql the transaction passed to its function',
          ),
        );
    }
    return this.gate!;
  }

  private async open<T>(fn: (sql: Sql) => Promise<T>, begin: string): Promise<T> {
    this.checkOpen();
    while (this.gate) await this.turn();
    let release!: () => void;
    this.gate = new Promise<void>((r) => (release = r));
    const inner = new Scope(this.db, this.prepare, this.depth + 1, this);
    const savepoint = this.depth > 0 ? `sp${this.depth}` : null;
    try {
      this.db.exec(begin);
      let result: T;
      try {
        result = await current.run(inner, () => fn(inner));
        this.db.exec(savepoint ? `RELEASE ${savepoint}` : 'COMMIT');
      } catch (err) {
        if (savepoint) this.db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
        else if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
      return result;
    } finally {
      inner.ended = true;
      this.gate = null;
      release();
    }
  }
}

/** The root Sql of a connection: statements outside any transaction, and the transactions. */
export function sqliteSql(db: Database.Database, prepare: Prepare): Sql {
  return new Scope(db, prepare, 0, null);
}
