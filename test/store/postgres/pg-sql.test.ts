import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rewritePlaceholders } from '../../../src/store/pg/placeholders.js';
import { PgSql } from '../../../src/store/pg/pg-sql.js';
import type { Sql } from '../../../src/store/sql.js';
import { pgFixture, skip, type PgFixture } from '../../support/postgres.js';

describe('placeholder rewriting', () => {
  it('numbers ? in order and names in order of first use, a repeated name keeping its number', () => {
    expect(rewritePlaceholders('SELECT ?, ?, ?', false)).toEqual({ text: 'SELECT $1, $2, $3', count: 3, names: [] });
    expect(rewritePlaceholders('SELECT @a, @b, @a, @a_2', true)).toEqual({
      text: 'SELECT $1, $2, $1, $3',
      count: 0,
      names: ['a', 'b', 'a_2'],
    });
  });

  it('leaves literals, quoted identifiers, comments and operators alone', () => {
    const sql = `SELECT '?' AS "a?b", 'it''s @x ?', E'\\' ?', $$ ? @y $$, $t$ @z ? $t$, "@w" -- ? @v
      /* ? /* @u */ ? */ FROM t WHERE v @@ q AND x = ?`;
    const r = rewritePlaceholders(sql, false);
    expect(r.count).toBe(1);
    expect(r.text).toBe(sql.replace(/\?$/, '$1'));
    const n = rewritePlaceholders(sql.replace(/\?$/, '@x'), true);
    expect(n.names).toEqual(['x']);
    expect(n.text.endsWith('v @@ q AND x = $1')).toBe(true);
    expect(n.text).toContain(`'it''s @x ?'`);
    // The ? of positional form is not a placeholder in the named form and the other way round.
    expect(rewritePlaceholders('SELECT @a, ?', true).text).toBe('SELECT $1, ?');
    expect(rewritePlaceholders('SELECT @a, ?', false).text).toBe('SELECT @a, $1');
    // A cast, a $1 and an unterminated literal pass through.
    expect(rewritePlaceholders(`SELECT x::int, $1, '?`, false)).toEqual({
      text: `SELECT x::int, $1, '?`,
      count: 0,
      names: [],
    });
  });
});

describe.skipIf(skip)('PgSql on a real server', () => {
  let f: PgFixture;
  let sql: PgSql;

  beforeAll(async () => {
    f = pgFixture();
    sql = await f.open({ migrate: false });
    await sql.exec(`CREATE TABLE kv (k text PRIMARY KEY, n bigint NOT NULL, flag integer NOT NULL DEFAULT 0);
      CREATE TABLE counter (id integer PRIMARY KEY, n integer NOT NULL); INSERT INTO counter VALUES (1, 0);`);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('binds both placeholder forms, a repeated name once, literals untouched', async () => {
    expect(await sql.get('SELECT ? AS a, ? AS b', ['x', 2])).toEqual({ a: 'x', b: '2' });
    expect(await sql.get(`SELECT @v::int + @v::int AS "twice", '@v ?' AS lit`, { v: 21 })).toEqual({
      twice: 42,
      lit: '@v ?',
    });
    expect((await sql.run('INSERT INTO kv (k, n) VALUES (@k, @n), (@k || @k, @n)', { k: 'a', n: 1 })).changes).toBe(2);
    expect(await sql.all('SELECT k FROM kv ORDER BY k')).toEqual([{ k: 'a' }, { k: 'aa' }]);
  });

  it('refuses a wrong number of values or a missing name, naming the SQL', async () => {
    await expect(sql.get('SELECT ?, ?', [1])).rejects.toThrow(/2 \? placeholders but 1 values.*SELECT \?, \?/);
    await expect(sql.get('SELECT @a, @b', { a: 1 })).rejects.toThrow(/no value for @b/);
  });

  it('returns int8 and counts as numbers, booleans as 1/0, and refuses an int8 beyond 2^53', async () => {
    const row = await sql.get<Record<string, unknown>>(
      `SELECT count(*) AS c, 9007199254740991::bigint AS max, sum(n) AS s, 1 = 1 AS yes, 1 = 2 AS no, 2.5::numeric AS num FROM kv`,
    );
    expect(row).toEqual({ c: 2, max: 9007199254740991, s: 2, yes: 1, no: 0, num: 2.5 });
    await expect(sql.get('SELECT 9007199254740993::bigint AS big')).rejects.toThrow(/beyond what a JS number holds/);
    // bigint values bind.
    expect(await sql.get('SELECT ?::bigint + 1 AS v', [41n])).toEqual({ v: 42 });
  });

  it('puts the SQL, never the values, in an error, keeping the driver code', async () => {
    await sql.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['secret-key', 1]);
    const dup = (await sql
      .run('INSERT INTO kv (k, n) VALUES (?, ?)', ['secret-key', 1])
      .catch((e: unknown) => e)) as Error & { code?: string; detail?: string };
    expect(dup.code).toBe('23505');
    expect(dup.message).not.toContain('secret-key');
    expect(dup.detail).toContain('secret-key'); // the server's detail field keeps it; the message never gets it
    await sql.run('DELETE FROM kv WHERE k = ?', ['secret-key']);
    expect(dup.message).toMatch(/duplicate key.*SQL: INSERT INTO kv/);
  });

  it('changes counts rows of an update and a delete', async () => {
    expect((await sql.run('UPDATE kv SET flag = 1')).changes).toBe(2);
    expect((await sql.run('DELETE FROM kv WHERE k = ?', ['none'])).changes).toBe(0);
  });

  it('commits a transaction and rolls one back when its function throws', async () => {
    await sql.tx(async (tx) => {
      await tx.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['t1', 1]);
    });
    await expect(
      sql.tx(async (tx) => {
        await tx.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['t2', 1]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await sql.all('SELECT k FROM kv WHERE k LIKE ? ORDER BY k', ['t%'])).toEqual([{ k: 't1' }]);
    // A statement error inside rolls back too, and the connection goes back to the pool usable.
    await expect(sql.tx((tx) => tx.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['t1', 1]))).rejects.toThrow(/duplicate/);
    expect(await sql.get('SELECT count(*) AS c FROM kv')).toEqual({ c: 3 });
  });

  it('makes a nested transaction a savepoint: its failure undoes only its own writes', async () => {
    await sql.tx(async (tx) => {
      await tx.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['outer', 1]);
      await expect(
        tx.tx(async (inner) => {
          await inner.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['inner-bad', 1]);
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
      await tx.tx(async (inner) => {
        await inner.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['inner-ok', 1]);
        await inner.tx((deeper) => deeper.run('UPDATE kv SET n = 5 WHERE k = ?', ['inner-ok']));
      });
    });
    expect(await sql.all(`SELECT k, n FROM kv WHERE k IN ('outer', 'inner-bad', 'inner-ok') ORDER BY k`)).toEqual([
      { k: 'inner-ok', n: 5 },
      { k: 'outer', n: 1 },
    ]);
  });

  it('refuses the root or an ended transaction inside a transaction', async () => {
    let kept: Sql | null = null;
    await expect(
      sql.tx(async (tx) => {
        kept = tx;
        await sql.get('SELECT 1');
      }),
    ).rejects.toThrow(/inside its own transaction/);
    await expect(kept!.get('SELECT 1')).rejects.toThrow(/has ended/);
  });

  it('runs write transactions on two connections one after the other: a read-then-write never loses an update', async () => {
    const bump = () =>
      sql.tx(async (tx) => {
        const { n } = (await tx.get<{ n: number }>('SELECT n FROM counter WHERE id = 1'))!;
        await new Promise((r) => setTimeout(r, 5));
        await tx.run('UPDATE counter SET n = ? WHERE id = 1', [n + 1]);
      });
    await Promise.all(Array.from({ length: 8 }, bump));
    expect(await sql.get('SELECT n FROM counter WHERE id = 1')).toEqual({ n: 8 });
  });

  it('serializes writing statements outside a transaction too: a max + 1 key never collides', async () => {
    await sql.exec('CREATE TABLE seqs (seq integer PRIMARY KEY, who text NOT NULL)');
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        // The sleep holds each statement open after it read the max: without the lock they would collide.
        sql.run(
          'INSERT INTO seqs (seq, who) SELECT COALESCE(MAX(seq), 0) + 1, ? FROM seqs, (SELECT pg_sleep(0.01)) s',
          [`w${i}`],
        ),
      ),
    );
    expect(await sql.get('SELECT count(*) AS c, max(seq) AS m FROM seqs')).toEqual({ c: 12, m: 12 });
    // A claim through get (RETURNING) is a write too.
    const claims = await Promise.all(
      Array.from({ length: 4 }, () =>
        sql.get<{ seq: number }>(
          `UPDATE seqs SET who = 'claimed' WHERE seq = (SELECT min(seq) FROM seqs WHERE who <> 'claimed') RETURNING seq`,
        ),
      ),
    );
    expect(new Set(claims.map((c) => c!.seq)).size).toBe(4);
  });

  it('reads a consistent snapshot while another connection writes', async () => {
    const seen = await sql
      .snapshot(async (s) => {
        const before = await s.get<{ c: number }>('SELECT count(*) AS c FROM kv');
        await sql.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['during', 1]);
        const after = await s.get<{ c: number }>('SELECT count(*) AS c FROM kv');
        return [before!.c, after!.c];
      })
      .catch((e: unknown) => e);
    // The root inside a snapshot is refused like inside a transaction; write outside instead.
    expect(String(seen)).toMatch(/inside its own transaction/);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const reading = sql.snapshot(async (s) => {
      const before = (await s.get<{ c: number }>('SELECT count(*) AS c FROM kv'))!.c;
      await gate;
      const after = (await s.get<{ c: number }>('SELECT count(*) AS c FROM kv'))!.c;
      return { before, after };
    });
    await new Promise((r) => setTimeout(r, 20));
    await sql.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['during', 1]);
    release();
    const { before, after } = await reading;
    expect(after).toBe(before);
    await expect(sql.snapshot((s) => s.run('DELETE FROM kv'))).rejects.toThrow(/read-only transaction/);
  });

  it('keeps each project in its own schema of one database', async () => {
    const database = await f.createDatabase();
    const a = await f.open({ database, schema: 'proj_a' });
    const b = await f.open({ database, schema: 'proj_b' });
    await a.run(`INSERT INTO api_keys (project, key_hash, created_at) VALUES ('a', 'h', 'now')`);
    expect(await a.get('SELECT count(*) AS c FROM api_keys')).toEqual({ c: 1 });
    expect(await b.get('SELECT count(*) AS c FROM api_keys')).toEqual({ c: 0 });
    expect(await a.get('SELECT current_schema() AS s')).toEqual({ s: 'proj_a' });
    expect(() => new PgSql({ connectionString: f.cluster.connectionString(database), schema: 'Bad"Name' })).toThrow(
      /schema: must be/,
    );
  });
});
