import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/sqlite/store.js';
import { migratePg, PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../../src/store/pg/migrations/index.js';
import type { PgSql } from '../../../src/store/pg/pg-sql.js';
import { pgFixture, skip, type PgFixture } from '../../support/postgres.js';

/** Tables of the PostgreSQL schema that SQLite has not (its FTS5 index and stemmer list stand for them there). */
// rate_limit_windows: SQLite counts requests in the serving process's memory.
// server_keys: SQLite keeps the server's keys as files in its data directory.
// search_words: SQLite reads the words as written from its FTS5 index's vocabulary.
const PG_ONLY_TABLES = [
  'schema_migrations',
  'search_configs',
  'search_ts_configs',
  'rate_limit_windows',
  'server_keys',
  'search_words',
];
const PG_ONLY_COLUMNS = ['pages.search_config', 'pages.search_vector', 'pages.search_title'];

/** table → sorted "column" list and primary key, of the SQLite schema after every migration (FTS tables left out). */
function sqliteSchema(): Map<string, { columns: string[]; pk: string[]; unique: string[][] }> {
  const store = new Store(':memory:');
  const out = new Map<string, { columns: string[]; pk: string[]; unique: string[][] }>();
  const tables = store.db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'pages%fts%' AND name NOT LIKE 'sqlite_%' AND name <> 'search_stemmers'`,
    )
    .pluck()
    .all() as string[];
  for (const t of tables) {
    const info = store.db.prepare(`SELECT name, pk FROM pragma_table_info(?)`).all(t) as { name: string; pk: number }[];
    const unique = (
      store.db
        .prepare(`SELECT name FROM pragma_index_list(?) WHERE "unique" = 1 AND origin = 'u'`)
        .pluck()
        .all(t) as string[]
    ).map(
      (idx) => store.db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(idx) as string[],
    );
    out.set(t, {
      columns: info.map((c) => c.name).sort(),
      pk: info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      unique: unique
        .map((u) => u.join(','))
        .sort()
        .map((u) => u.split(',')),
    });
  }
  store.close();
  return out;
}

async function pgSchema(sql: PgSql): Promise<Map<string, { columns: string[]; pk: string[]; unique: string[][] }>> {
  const cols = await sql.all<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, column_name`,
  );
  const keys = await sql.all<{ table_name: string; kind: string; cols: string }>(
    `SELECT c.conrelid::regclass::text AS table_name, c.contype AS kind,
       string_agg(a.attname, ',' ORDER BY k.ord) AS cols
     FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
     WHERE c.connamespace = current_schema()::regnamespace AND c.contype IN ('p', 'u')
     GROUP BY c.oid, c.conrelid, c.contype`,
  );
  const out = new Map<string, { columns: string[]; pk: string[]; unique: string[][] }>();
  for (const c of cols) {
    if (PG_ONLY_TABLES.includes(c.table_name) || PG_ONLY_COLUMNS.includes(`${c.table_name}.${c.column_name}`)) continue;
    if (!out.has(c.table_name)) out.set(c.table_name, { columns: [], pk: [], unique: [] });
    out.get(c.table_name)!.columns.push(c.column_name);
  }
  for (const k of keys) {
    const t = out.get(k.table_name);
    if (!t) continue;
    if (k.kind === 'p') t.pk = k.cols.split(',');
    else t.unique.push(k.cols.split(','));
  }
  for (const t of out.values())
    t.unique = t.unique
      .map((u) => u.join(','))
      .sort()
      .map((u) => u.split(','));
  return out;
}

describe.skipIf(skip)('PostgreSQL migrations', () => {
  let f: PgFixture;
  beforeAll(() => {
    f = pgFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('create on a fresh database the tables, columns and keys SQLite has after all its migrations', async () => {
    const sql = await f.open({ migrate: false });
    expect(await migratePg(sql)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(await sql.all('SELECT version FROM schema_migrations ORDER BY version')).toEqual(
      PG_MIGRATIONS.map((m) => ({ version: m.version })),
    );
    const want = sqliteSchema();
    const got = await pgSchema(sql);
    expect(want.size).toBeGreaterThan(15);
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [table, shape] of want) expect(got.get(table), table).toEqual(shape);
    // Text sorts as SQLite's BINARY does, whatever the database's locale.
    expect(
      await sql.all(
        `SELECT DISTINCT collation_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND data_type = 'text'`,
      ),
    ).toEqual([{ c: 'C' }]);
  });

  it('apply nothing the second time', async () => {
    const sql = await f.open();
    expect(await migratePg(sql)).toEqual([]);
    expect(await sql.get('SELECT count(*) AS c FROM schema_migrations')).toEqual({ c: PG_MIGRATIONS.length });
  });

  it('let two processes starting at once migrate one after the other, each migration applied once', async () => {
    for (const schema of [undefined, 'proj_x']) {
      const database = await f.createDatabase();
      const a = await f.open({ database, schema, migrate: false });
      const b = await f.open({ database, schema, migrate: false });
      const [ra, rb] = await Promise.all([migratePg(a), migratePg(b)]);
      // Numerically: from version 10 on, the default sort (as text) would put 10 before 2.
      expect([...ra, ...rb].sort((x, y) => x - y)).toEqual(PG_MIGRATIONS.map((m) => m.version));
      expect(await b.get('SELECT count(*) AS c FROM schema_migrations')).toEqual({ c: PG_MIGRATIONS.length });
    }
    // Two projects' schemas of one new database at once: both get the diacritics-folding configurations.
    const database = await f.createDatabase();
    const [p1, p2] = await Promise.all(['proj_1', 'proj_2'].map((schema) => f.open({ database, schema })));
    for (const s of [p1!, p2!])
      expect(await s.get(`SELECT svc_ts_config('fr')::text AS c`)).toEqual({ c: 'svc_french' });
  });

  it('roll a failing migration back whole, naming it', async () => {
    const sql = await f.open();
    const bad = [
      ...PG_MIGRATIONS,
      { version: 999, name: 'breaks half way', sql: 'CREATE TABLE half_made (x int); SELECT no_such_function();' },
    ];
    await expect(migratePg(sql, bad)).rejects.toThrow(/migration 999 \(breaks half way\) failed: .*no_such_function/);
    expect(await sql.get(`SELECT to_regclass('half_made') AS t`)).toEqual({ t: null });
    expect(await sql.get('SELECT max(version) AS v FROM schema_migrations')).toEqual({ v: PG_SCHEMA_VERSION });
  });

  it('map page languages to text search configurations, simple when the server has none', async () => {
    const sql = await f.open();
    const cfg = async (lang: string | null) =>
      (await sql.get<{ c: string }>('SELECT svc_ts_config(?)::text AS c', [lang]))!.c;
    // svc_<name>: the server's configuration with diacritics folded (the unaccent extension ships with PostgreSQL).
    expect(await cfg('sv-FI')).toBe('svc_swedish');
    expect(await cfg('EN_us')).toBe('svc_english');
    expect(await cfg('de')).toBe('svc_german');
    expect(await cfg(null)).toBe('svc_english');
    expect(await cfg('xx')).toBe('svc_simple');
    expect(await cfg('ja')).toBe('svc_simple');
    expect(await sql.get(`SELECT to_tsvector(svc_ts_config('fr'), 'Café crème Zürich')::text AS v`)).toEqual({
      v: `'caf':1 'crem':2 'zurich':3`,
    });
  });
});
