// The PostgreSQL that the tests of a shared database run on: a real server, started here and removed after.
// Checks what the store on PostgreSQL will lean on: a unix-socket connection through `pg`, full-text search with
// a language configuration, and FOR UPDATE SKIP LOCKED claims between two connections.
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBinDir, startPostgres, type PgCluster } from '../../support/postgres.js';

// CI installs postgresql (.ci/run), so there the tests must run; elsewhere they run when a server is installed.
const skip = !postgresBinDir() && !process.env.CI;

describe.skipIf(skip)('a throw-away PostgreSQL cluster', () => {
  let cluster: PgCluster;
  let a: pg.Client;
  let b: pg.Client;

  beforeAll(async () => {
    cluster = startPostgres();
    a = new pg.Client({ connectionString: cluster.connectionString() });
    b = new pg.Client({ connectionString: cluster.connectionString() });
    await a.connect();
    await b.connect();
  });

  afterAll(async () => {
    await a?.end();
    await b?.end();
    const dir = cluster?.socketDir;
    cluster?.stop();
    if (dir) expect(existsSync(dir)).toBe(false);
  });

  it('connects over a unix socket only', async () => {
    const { rows } = await a.query(
      `SELECT current_setting('listen_addresses') AS listen, current_user AS who, version() AS v`,
    );
    expect(rows[0]).toMatchObject({ listen: '', who: 'svc' });
    expect(rows[0].v).toMatch(/^PostgreSQL \d+/);
  });

  it('stems and ranks with a language configuration', async () => {
    const { rows } = await a.query(
      `SELECT to_tsvector('english', 'Vacuuming tables') @@ websearch_to_tsquery('english', 'vacuum table') AS hit,
              ts_rank_cd(to_tsvector('english', 'Vacuuming tables'), websearch_to_tsquery('english', 'vacuum')) > 0 AS ranked,
              ts_headline('english', 'Vacuuming tables reclaims storage', websearch_to_tsquery('english', 'vacuum')) AS snippet`,
    );
    expect(rows[0]).toEqual({ hit: true, ranked: true, snippet: '<b>Vacuuming</b> tables reclaims storage' });
  });

  it('two connections claiming queued rows with FOR UPDATE SKIP LOCKED never take the same one', async () => {
    await a.query('CREATE TABLE queue (id int PRIMARY KEY, claimed_by text)');
    await a.query('INSERT INTO queue SELECT g, NULL FROM generate_series(1, 4) g');
    const claim = (c: pg.Client) =>
      c.query(`SELECT id FROM queue WHERE claimed_by IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`);
    await a.query('BEGIN');
    await b.query('BEGIN');
    const first = (await claim(a)).rows[0].id;
    const second = (await claim(b)).rows[0].id;
    expect([first, second]).toEqual([1, 2]);
    await a.query('COMMIT');
    await b.query('COMMIT');
  });
});
