// The Sql interface over a pg.Pool: statements outside a transaction take any free connection; a transaction checks
// one out for its whole run (BEGIN … COMMIT/ROLLBACK, a nested one is a savepoint on it).
//
// Results look as they do from SQLite: int8 (bigint columns, count(*)) and numeric come back as JS numbers (an int8
// beyond 2^53 is an error, never a silently rounded number), and booleans as 1/0. Every write transaction, and every
// writing statement outside one, first takes one advisory lock per schema, as SQLite's BEGIN IMMEDIATE takes its
// file's write lock: store code written for SQLite checks and then writes, which is only safe when no other writer
// interleaves.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { namedSqlError, sqlForMessage, type RunResult, type Sql, type SqlParams, type SqlValue } from '../sql.js';
import { COMMIT_UNKNOWN, isConnectionLoss } from './outage.js';
import { rewritePlaceholders, type Rewritten } from './placeholders.js';

const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;

function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`integer ${text} is beyond what a JS number holds exactly`);
  return n;
}

/** The pool's own type parsers (pg's global ones are left alone). */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') {
      if (oid === INT8) return parseInt8;
      if (oid === NUMERIC) return (text: string) => Number(text);
      if (oid === BOOL) return (text: string) => (text === 't' ? 1 : 0);
    }
    return format ? pg.types.getTypeParser(oid, format) : pg.types.getTypeParser(oid);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** A schema name as `schema` accepts it: a plain lower-case identifier (no quoting needed anywhere). */
export const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PgSqlOptions {
  /** postgres://… */
  connectionString: string;
  /** Every connection's search_path: this project's schema (created by the migrations). Default: the server's. */
  schema?: string;
  /** Connections in the pool (default 10). */
  max?: number;
}

const REWRITE_CACHE_MAX = 2000;
const rewrites = new Map<string, Rewritten>();

function rewrite(sql: string, named: boolean): Rewritten {
  const key = (named ? '@' : '?') + sql;
  let r = rewrites.get(key);
  if (!r) {
    r = rewritePlaceholders(sql, named);
    if (rewrites.size >= REWRITE_CACHE_MAX) rewrites.clear();
    rewrites.set(key, r);
  }
  return r;
}

/** PostgreSQL text holds no NUL character (SQLite's does): one becomes U+FFFD, so a page with one is still stored. */
export function pgText<T extends string | null>(s: T): T {
  return (s?.includes('\0') ? s.replaceAll('\0', '\ufffd') : s) as T;
}

const bindable = (v: SqlValue): SqlValue => (typeof v === 'string' ? pgText(v) : v);

/** The statement PostgreSQL runs and its values, from the store's form. Throws when values and placeholders disagree. */
export function toQuery(sql: string, params: SqlParams | undefined): { text: string; values: SqlValue[] } {
  if (params === undefined || Array.isArray(params)) {
    const values = (params ?? []) as readonly SqlValue[];
    const r = rewrite(sql, false);
    if (r.count !== values.length)
      throw new Error(
        `the statement has ${r.count} ? placeholders but ${values.length} values were given (SQL: ${sqlForMessage(sql)})`,
      );
    return { text: r.text, values: values.map(bindable) };
  }
  const r = rewrite(sql, true);
  const obj = params as Readonly<Record<string, SqlValue>>;
  const values = r.names.map((name) => {
    if (!Object.hasOwn(obj, name) || obj[name] === undefined)
      throw new Error(`no value for @${name} (SQL: ${sqlForMessage(sql)})`);
    return bindable(obj[name]!);
  });
  return { text: r.text, values };
}

/** A statement that writes (INSERT, UPDATE, DELETE or MERGE, maybe after WITH). */
const WRITE_RE = /^\s*(?:INSERT|UPDATE|DELETE|MERGE)\b|^\s*WITH\b[\s\S]*\b(?:INSERT|UPDATE|DELETE|MERGE)\b/i;

/** Where statements go: the pool (any connection) or one checked-out client (a transaction). */
type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** The transaction whose fn runs in this async context (to tell a caller that would wait for itself). */
const current = new AsyncLocalStorage<Scope>();

class Scope implements Sql {
  readonly dialect = 'pg' as const;
  /** Set while a savepoint opened on this transaction runs: the transaction's other callers wait for it. */
  private gate: Promise<void> | null = null;
  ended = false;

  constructor(
    readonly root: PgSql,
    private readonly conn: Queryable,
    private readonly depth: number,
    private readonly parent: Scope | null,
  ) {}

  async get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  async exec(sql: string): Promise<void> {
    await this.ready();
    try {
      // The simple query protocol: several statements in one string, no parameters.
      await this.conn.query(sql);
    } catch (err) {
      throw namedSqlError(err, sql);
    }
  }

  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (this.depth === 0) return this.root.transaction(fn, 'write');
    return this.savepoint(fn);
  }

  rowTx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (this.depth === 0) return this.root.transaction(fn, 'rows');
    return this.savepoint(fn);
  }

  snapshot<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    // Inside a transaction the reads are consistent already.
    if (this.depth > 0) return this.ready().then(() => fn(this));
    return this.root.transaction(fn, 'snapshot');
  }

  private async query(sql: string, params: SqlParams | undefined): Promise<pg.QueryResult> {
    const q = toQuery(sql, params);
    await this.ready();
    if (this.depth === 0 && WRITE_RE.test(sql)) {
      // A write outside a transaction waits for the write lock as on SQLite, so a claim such as
      // UPDATE … WHERE id = (SELECT … LIMIT 1) cannot take the row another process's statement takes.
      let result!: pg.QueryResult;
      await this.root.transaction(async (tx) => {
        result = await (tx as Scope).send(sql, q);
      }, 'write');
      return result;
    }
    return this.send(sql, q);
  }

  private async send(sql: string, q: { text: string; values: SqlValue[] }): Promise<pg.QueryResult> {
    try {
      return await this.conn.query(q.text, q.values);
    } catch (err) {
      throw namedSqlError(err, sql);
    }
  }

  private async ready(): Promise<void> {
    if (this.ended) throw new Error('this transaction has ended: its Sql cannot be used any more');
    if (this.depth === 0) this.root.checkOutside();
    while (this.gate) {
      for (let s: Scope | null = current.getStore() ?? null; s; s = s.parent) {
        if (s.parent === this)
          throw new Error(
            'a transaction was used inside its own savepoint: use the Sql the savepoint passed to its function',
          );
      }
      await this.gate;
    }
  }

  private async savepoint<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    await this.ready();
    let release!: () => void;
    this.gate = new Promise<void>((r) => (release = r));
    const name = `sp${this.depth}`;
    const inner = new Scope(this.root, this.conn, this.depth + 1, this);
    try {
      await this.conn.query(`SAVEPOINT ${name}`);
      try {
        const result = await current.run(inner, () => fn(inner));
        await this.conn.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (err) {
        await this.conn.query(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
        throw err;
      }
    } finally {
      inner.ended = true;
      this.gate = null;
      release();
    }
  }

  /** Runs fn as a transaction on a checked-out client (called on the root scope). */
  static async run<T>(root: PgSql, pool: pg.Pool, fn: (sql: Sql) => Promise<T>, begin: string): Promise<T> {
    const client = await pool.connect();
    const inner = new Scope(root, client, 1, null);
    let broken: Error | undefined;
    // A connection lost between two statements is the next statement's error; with no listener the pool leaves a
    // checked-out client, its 'error' event would take the process down.
    const lost = (err: Error) => void (broken ??= err);
    client.on('error', lost);
    try {
      try {
        await client.query(begin);
      } catch (err) {
        // Not even BEGIN went through: the connection is in no state to go back to the pool.
        broken = err as Error;
        throw namedSqlError(err, begin);
      }
      try {
        const result = await current.run(inner, () => fn(inner));
        try {
          await client.query('COMMIT');
        } catch (err) {
          if (!isConnectionLoss(err)) throw err;
          // Sent, but its answer lost with the connection: whether it was written is unknown (never run again).
          broken = err as Error;
          throw Object.assign(
            new Error(`the connection was lost while committing: whether the transaction was written is unknown`, {
              cause: err,
            }),
            { code: COMMIT_UNKNOWN },
          );
        }
        return result;
      } catch (err) {
        if (broken) throw err;
        try {
          await client.query('ROLLBACK');
        } catch (rollbackErr) {
          // The connection is in no state to go back to the pool.
          broken = rollbackErr as Error;
        }
        throw err;
      }
    } finally {
      inner.ended = true;
      client.removeListener('error', lost);
      client.release(broken);
    }
  }
}

/** Two-key advisory locks: this class id, and a hash of the schema. */
export const LOCK_CLASS_WRITE = 0x737663; // 'svc'
export const LOCK_CLASS_MIGRATE = 0x73766d;

/** A 32-bit FNV-1a hash, as a signed int4 (what pg_advisory_xact_lock(int4, int4) takes). */
export function lockKey(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/** The root Sql of a pool. `close()` ends every connection. */
export class PgSql implements Sql {
  readonly dialect = 'pg' as const;
  readonly pool: pg.Pool;
  readonly schema: string | null;
  private readonly scope: Scope;
  private readonly writeLock: string;

  constructor(opts: PgSqlOptions) {
    if (opts.schema !== undefined && !SCHEMA_RE.test(opts.schema)) {
      throw new Error(
        `schema: must be a lower-case name of letters, digits and _ (got ${JSON.stringify(opts.schema)})`,
      );
    }
    this.schema = opts.schema ?? null;
    this.pool = new pg.Pool({
      connectionString: opts.connectionString,
      max: opts.max ?? 10,
      types: TYPES,
      // Set when the connection starts, so no statement can run before it.
      ...(this.schema ? { options: `-c search_path=${this.schema}` } : {}),
    });
    // An idle connection the server dropped must not take the process down; the next checkout opens another.
    this.pool.on('error', () => {});
    // Nor a second 'error' of a checked-out connection the server ended (a restart's 57P01, then the socket's end):
    // the statement it ran has its own error already, and an 'error' event with no listener ends the process.
    this.pool.on('connect', (client) => client.on('error', () => {}));
    this.scope = new Scope(this, this.pool, 0, null);
    this.writeLock = `SELECT pg_advisory_xact_lock(${LOCK_CLASS_WRITE}, ${lockKey(this.schema ?? '')})`;
  }

  get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.scope.get<T>(sql, params);
  }
  all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.scope.all<T>(sql, params);
  }
  run(sql: string, params?: SqlParams): Promise<RunResult> {
    return this.scope.run(sql, params);
  }
  exec(sql: string): Promise<void> {
    return this.scope.exec(sql);
  }
  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.transaction(fn, 'write');
  }
  rowTx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.transaction(fn, 'rows');
  }
  snapshot<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.transaction(fn, 'snapshot');
  }

  /**
   * @internal Scopes call this: a write transaction (the schema's write lock first), one that locks only its rows,
   * or a read-only snapshot.
   */
  transaction<T>(fn: (sql: Sql) => Promise<T>, kind: 'write' | 'rows' | 'snapshot'): Promise<T> {
    try {
      this.checkOutside();
    } catch (err) {
      return Promise.reject(err);
    }
    const begin =
      kind === 'write'
        ? `BEGIN; ${this.writeLock}`
        : kind === 'rows'
          ? 'BEGIN'
          : 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';
    return Scope.run(this, this.pool, fn, begin);
  }

  /**
   * @internal Refuses the root inside one of its own transactions: a write there would wait for the write lock the
   * transaction holds (for ever), and a read would not see the transaction's writes.
   */
  checkOutside(): void {
    if (current.getStore()?.root === this)
      throw new Error(
        'the store was used inside its own transaction: use the Sql the transaction passed to its function',
      );
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
