// The one way store code talks to a database, SQLite or PostgreSQL alike: asynchronous, so a network database fits
// under the same functions. Each store function is written once against this; where the two dialects differ
// (claims with FOR UPDATE SKIP LOCKED, full-text search) it asks `dialect`.
//
// Placeholders: `?` with an array, or `@name` with an object (a name may repeat). Values: string, number, bigint,
// null, Buffer (booleans as 0/1). Column aliases in camelCase must be quoted (`AS "codeHash"`): PostgreSQL folds
// unquoted names to lower case. Integer columns come back as numbers in both.

export type Dialect = 'sqlite' | 'pg';

export type SqlValue = string | number | bigint | null | Buffer;
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;

export interface RunResult {
  /** Rows changed by an INSERT, UPDATE or DELETE. */
  changes: number;
}

export interface Sql {
  readonly dialect: Dialect;
  /** The first row, or undefined. */
  get<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  all<T>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<RunResult>;
  /** Several statements, no parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Runs fn in one transaction on one connection and commits when it resolves (rolls back when it throws). The write
   * lock is taken up front (SQLite: BEGIN IMMEDIATE), so a check and the write that depends on it cannot interleave
   * with another process's. Called on a transaction's `Sql`: a savepoint, so a failure undoes only its own writes.
   * fn must do nothing but database work: other callers of this store wait while it runs.
   */
  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * tx for code that locks the rows it decides on itself (PostgreSQL: SELECT … FOR UPDATE [SKIP LOCKED]), so it needs
   * no store-wide write lock and several processes' such transactions run side by side (the shared frontier, host
   * leases). SQLite: tx (its file has one writer anyway).
   */
  rowTx<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs fn's reads on one consistent snapshot without taking the write lock (SQLite: a deferred transaction;
   * PostgreSQL: REPEATABLE READ READ ONLY), so rows, counts and dates read one after the other agree. Called on a
   * transaction's `Sql`: fn runs in that transaction. Like tx, other callers of this store wait while it runs.
   */
  snapshot<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
}

/**
 * The row lock a PostgreSQL SELECT takes (` FOR SHARE` or ` FOR UPDATE`); nothing on SQLite, whose transaction holds
 * the write lock already.
 */
export function rowLock(sql: Sql, mode: 'share' | 'update'): string {
  return sql.dialect !== 'pg' ? '' : mode === 'share' ? ' FOR SHARE' : ' FOR UPDATE';
}

/**
 * `@p0, @p1, …`: the placeholders of a list of `n` values bound as p0, p1, … (what `IN (…)` takes in both dialects;
 * a JSON array with json_each would be SQLite's alone). Lists are short (hosts, reasons): few statement shapes.
 */
export function inList(prefix: string, n: number): string {
  return Array.from({ length: n }, (_, i) => `@${prefix}${i}`).join(', ');
}

/** The values of an inList, as named parameters. */
export function inParams(prefix: string, values: readonly SqlValue[]): Record<string, SqlValue> {
  return Object.fromEntries(values.map((v, i) => [`${prefix}${i}`, v]));
}

/** The SQL text in an error message: one line, cut short; never the values bound to it. */
export function sqlForMessage(sql: string): string {
  const one = sql.replace(/\s+/g, ' ').trim();
  return one.length > 300 ? `${one.slice(0, 300)}…` : one;
}

/**
 * The driver's error naming the SQL that failed (never its values). Its class and `code` are kept, so callers still
 * tell SQLITE_BUSY, corruption or a PostgreSQL unique violation (23505) apart.
 */
export function namedSqlError(err: unknown, sql: string): unknown {
  if (err instanceof Error && !(err as { sql?: string }).sql) {
    err.message = `${err.message} (SQL: ${sqlForMessage(sql)})`;
    Object.defineProperty(err, 'sql', { value: sql, enumerable: false });
  }
  return err;
}

/** The code of an error whose COMMIT went out and whose answer the lost connection took: written or not, unknown. */
export const COMMIT_UNKNOWN = 'SVC_COMMIT_UNKNOWN';

/** Whether err (or its cause) is a COMMIT whose outcome is unknown (a database restart under it). */
export function isCommitUnknown(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | null, i = 0; e && i < 4; i++, e = e.cause as typeof e)
    if (e.code === COMMIT_UNKNOWN) return true;
  return false;
}

/**
 * fn, or (its COMMIT's answer lost with the connection: a database restart under it) what `unknown` answers: the
 * same write again when it is idempotent, or the answer that is safe either way. Work goes on through a restart
 * instead of failing on a write that may well have been made.
 */
export async function orIfUnknown<T>(fn: () => Promise<T>, unknown: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!isCommitUnknown(err)) throw err;
    return unknown();
  }
}

/** An idempotent write: run again when whether it was written is unknown. */
export const again = <T>(fn: () => Promise<T>): Promise<T> => orIfUnknown(fn, fn);
