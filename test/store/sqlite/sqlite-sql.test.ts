// The Sql interface over one SQLite connection: placeholders, transactions, savepoints, callers waiting for a
// transaction, errors naming their SQL.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/sqlite/store.js';
import type { Sql } from '../../../src/store/sql.js';

const open: Store[] = [];
function store(): Store {
  const s = new Store(join(mkdtempSync(join(tmpdir(), 'svc-sql-')), 'svc.db'));
  open.push(s);
  s.db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)');
  return s;
}
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const values = async (sql: Sql) =>
  (await sql.all<{ k: string; v: number }>('SELECT k, v FROM t ORDER BY k')).map((r) => `${r.k}=${r.v}`);

describe('SQLite Sql', () => {
  it('binds ? with an array and @name with an object (a name may repeat)', async () => {
    const { sql } = store();
    expect(await sql.run('INSERT INTO t (k, v) VALUES (?, ?)', ['a', 1])).toEqual({ changes: 1 });
    await sql.run('INSERT INTO t (k, v) VALUES (@k, @v)', { k: 'b', v: 2 });
    expect(await sql.get('SELECT k, v FROM t WHERE v = @n OR v = @n + 100', { n: 2 })).toEqual({ k: 'b', v: 2 });
    expect(await sql.get('SELECT k FROM t WHERE k = ?', ['none'])).toBeUndefined();
    expect(await sql.get<{ n: number }>('SELECT count(*) AS "rowCount" FROM t')).toEqual({ rowCount: 2 });
    expect(await sql.all('SELECT k FROM t WHERE k IN (?, ?) ORDER BY k', ['a', 'b'])).toEqual([{ k: 'a' }, { k: 'b' }]);
    expect(
      await sql.get('INSERT INTO t (k, v) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING k', ['a', 9]),
    ).toBeUndefined();
  });

  it('commits a transaction when fn resolves and rolls it back when it throws', async () => {
    const { sql } = store();
    expect(await sql.tx(async (t) => (await t.run('INSERT INTO t VALUES (?, ?)', ['a', 1])).changes)).toBe(1);
    await expect(
      sql.tx(async (t) => {
        await t.run('INSERT INTO t VALUES (?, ?)', ['b', 2]);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(await values(sql)).toEqual(['a=1']);
  });

  it('runs a nested tx as a savepoint: its failure undoes only its own writes', async () => {
    const { sql } = store();
    await sql.tx(async (t) => {
      await t.run('INSERT INTO t VALUES (?, ?)', ['outer', 1]);
      await t
        .tx(async (s) => {
          await s.run('INSERT INTO t VALUES (?, ?)', ['inner', 2]);
          throw new Error('inner fails');
        })
        .catch(() => {});
      await t.tx(async (s) => s.run('INSERT INTO t VALUES (?, ?)', ['kept', 3]));
      await t.run('UPDATE t SET v = 10 WHERE k = ?', ['outer']);
    });
    expect(await values(sql)).toEqual(['kept=3', 'outer=10']);
  });

  it('makes a second caller wait while a transaction is open: it never sees nor joins its writes', async () => {
    const { sql } = store();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const tx = sql.tx(async (t) => {
      await t.run('INSERT INTO t VALUES (?, ?)', ['tx', 1]);
      entered();
      await held;
      await t.run('UPDATE t SET v = 2 WHERE k = ?', ['tx']);
      throw new Error('rolled back');
    });
    await inside;
    const order: string[] = [];
    // Outside the transaction: a write and a read, issued while it is open.
    const write = sql.run('INSERT INTO t VALUES (?, ?)', ['other', 5]).then(() => order.push('write'));
    const read = sql.all('SELECT k FROM t').then((rows) => {
      order.push('read');
      return rows;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    release();
    await expect(tx).rejects.toThrow('rolled back');
    await write;
    // The write was not rolled back with the transaction, and the read saw only what was committed.
    expect(await read).toEqual([{ k: 'other' }]);
    expect(await values(sql)).toEqual(['other=5']);
  });

  it('runs transactions one after the other', async () => {
    const { sql } = store();
    await sql.run('INSERT INTO t VALUES (?, ?)', ['n', 0]);
    // Each reads, waits, then writes what it read plus one: interleaved, updates would be lost.
    const bump = () =>
      sql.tx(async (t) => {
        const { v } = (await t.get<{ v: number }>('SELECT v FROM t WHERE k = ?', ['n']))!;
        await new Promise((r) => setImmediate(r));
        await t.run('UPDATE t SET v = ? WHERE k = ?', [v + 1, 'n']);
      });
    await Promise.all([bump(), bump(), bump(), bump()]);
    expect(await values(sql)).toEqual(['n=4']);
  });

  it('refuses the root Sql inside its own transaction instead of waiting for ever', async () => {
    const { sql } = store();
    await expect(sql.tx(async () => sql.get('SELECT 1'))).rejects.toThrow(/inside its own transaction/);
    // And the transaction's Sql after it ended.
    let kept: Sql | null = null;
    await sql.tx(async (t) => {
      kept = t;
    });
    await expect(kept!.get('SELECT 1')).rejects.toThrow(/ended/);
  });

  it('reads a snapshot without the write lock', async () => {
    const s = store();
    await s.sql.run('INSERT INTO t VALUES (?, ?)', ['a', 1]);
    const other = new Store(s.path, { migrate: false });
    open.push(other);
    // Another connection holds the write lock: a snapshot still reads.
    other.db.exec('BEGIN IMMEDIATE');
    other.db.prepare('INSERT INTO t VALUES (?, ?)').run('b', 2);
    expect(await s.sql.snapshot(values)).toEqual(['a=1']);
    other.db.exec('COMMIT');
    expect(await s.sql.snapshot(values)).toEqual(['a=1', 'b=2']);
  });

  it('names the SQL that failed, never the values, and keeps the driver code', async () => {
    const { sql } = store();
    await sql.run('INSERT INTO t VALUES (?, ?)', ['secret-key', 1]);
    const err = (await sql
      .run('INSERT INTO t (k, v) VALUES (?, ?)', ['secret-key', 2])
      .catch((e: unknown) => e)) as Error & { code: string };
    expect(err.message).toContain('UNIQUE constraint failed');
    expect(err.message).toContain('(SQL: INSERT INTO t (k, v) VALUES (?, ?))');
    expect(err.message).not.toContain('secret-key');
    expect(err.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    await expect(sql.get('SELECT nope FROM t')).rejects.toThrow('(SQL: SELECT nope FROM t)');
  });
});
