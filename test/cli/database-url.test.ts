// database_url / SVC_DATABASE_URL: a bad one is refused naming the field; its password shows nowhere — not in a
// config error, a store's location, a driver error, a log line, or the refusal of the SQLite-only commands.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApp } from '../../src/app/open-app.js';
import { run } from '../../src/cli/database.js';
import { ConfigError, loadConfig, parseConfig } from '../../src/cli/load-config.js';
import { problemsOf } from '../support/config-problems.js';
import { databaseUrlProblem, describeDatabaseUrl, withoutPassword } from '../../src/model/database-url.js';
import { PgStore } from '../../src/store/pg/store.js';
import { tempDir } from '../support/app.js';
import { html, send, startSite } from '../support/site.js';
import { runSvc, testTerminal } from '../support/cli.js';
import { pgFixture, skip, type PgFixture } from '../support/postgres.js';

const SECRET = 'hunter2-Sekr3t';

describe('database_url in the config', () => {
  it('defaults to null (SQLite) and takes a postgres:// or postgresql:// URL', () => {
    expect(parseConfig({}).database_url).toBeNull();
    expect(parseConfig({ database_url: 'postgres://u:p@db.internal:5432/svc' }).database_url).toBe(
      'postgres://u:p@db.internal:5432/svc',
    );
    expect(parseConfig({ database_url: 'postgresql://u@/svc?host=/run/postgresql' }).database_url).toBe(
      'postgresql://u@/svc?host=/run/postgresql',
    );
  });

  it('refuses anything else, naming the field, and never repeats the URL', () => {
    for (const bad of [`mysql://root:${SECRET}@db/svc`, `${SECRET}`, `https://u:${SECRET}@db/svc`]) {
      const problems = problemsOf({ database_url: bad });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^database_url: must be a postgres:\/\/ or postgresql:\/\/ URL/);
      expect(problems.join('\n')).not.toContain(SECRET);
    }
    expect(problemsOf({ database_url: 5 })[0]).toMatch(/^database_url: /);
  });

  it('SVC_DATABASE_URL sets it, over the file', () => {
    const dir = tempDir('svc-dburl-');
    const file = join(dir, 'svc.json');
    writeFileSync(file, JSON.stringify({ database_url: 'postgres://file@db/one' }));
    expect(loadConfig({ configPath: file, env: {} }).database_url).toBe('postgres://file@db/one');
    expect(loadConfig({ configPath: file, env: { SVC_DATABASE_URL: 'postgres://env@db/two' } }).database_url).toBe(
      'postgres://env@db/two',
    );
    let err: unknown;
    try {
      loadConfig({ env: { SVC_DATABASE_URL: `mysql://root:${SECRET}@db/svc` } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toMatch(/database_url: must be a postgres/);
    expect(String((err as Error).message)).not.toContain(SECRET);
  });

  it('is shown as postgres://user@host:port/database', () => {
    expect(describeDatabaseUrl(`postgres://svc:${SECRET}@db.internal:6543/reports?sslmode=require`)).toBe(
      'postgres://svc@db.internal:6543/reports',
    );
    expect(describeDatabaseUrl(`postgresql://svc:${SECRET}@db.internal/reports`)).toBe(
      'postgres://svc@db.internal:5432/reports',
    );
    expect(describeDatabaseUrl('postgres://svc@/t1?host=%2Ftmp%2Fsock&port=25432')).toBe(
      'postgres://svc@/tmp/sock:25432/t1',
    );
    expect(databaseUrlProblem('postgres://svc@/t1?host=/tmp')).toBeNull();
    expect(
      withoutPassword(`failed for postgres://svc:${SECRET}@db/x and ${SECRET}`, `postgres://svc:${SECRET}@db/x`),
    ).toBe('failed for postgres://svc@db:5432/x and ***');
  });

  it('svc check, repair and backup refuse a PostgreSQL store clearly, without the password', async () => {
    const dir = tempDir('svc-dburl-cli-');
    const file = join(dir, 'svc.json');
    writeFileSync(
      file,
      JSON.stringify({ data_dir: join(dir, 'data'), database_url: `postgres://svc:${SECRET}@db.internal/svc` }),
    );
    for (const [command, args] of [
      ['check', []],
      ['repair', []],
      ['backup', [join(dir, 'copy.db')]],
    ] as const) {
      const err = await run([...args, '--config', file], testTerminal().io, command).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toMatch(
        new RegExp(`^${command}: works on the SQLite store only.*PostgreSQL.*postgres://svc@db\\.internal:5432/svc`),
      );
      expect((err as Error).message).not.toContain(SECRET);
    }
  });
});

describe.skipIf(skip)('database_url on a real server: the password in no error or log line', () => {
  let db: PgFixture;
  beforeAll(() => {
    db = pgFixture();
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  /** The cluster's URL with a password (the cluster trusts the socket, so any password gets in). */
  const withSecret = (database: string) =>
    db.cluster.connectionString(database).replace('postgres://svc@', `postgres://svc:${SECRET}@`);

  it('a store on a database that is not there fails with the server error, the password taken out; then recovers', async () => {
    const store = new PgStore({ url: withSecret('nosuchdb'), token: 'dburl001:eu-north-1' });
    expect(store.location).toMatch(
      /^postgres:\/\/svc@\/.+:\d+\/nosuchdb \(schema svc_dburl001_eu_north_1_[0-9a-f]{8}\)$/,
    );
    const err = await store.sql.get('SELECT 1').catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/nosuchdb/);
    expect((err as Error).message).not.toContain(SECRET);
    // Once the database is there, the next statement opens the store (the service recovers without a restart).
    const admin = new pg.Client({ connectionString: db.cluster.connectionString() });
    await admin.connect();
    await admin.query('CREATE DATABASE nosuchdb');
    await admin.end();
    expect(await store.sql.get<{ n: number }>('SELECT count(*) AS n FROM crawls')).toEqual({ n: 0 });
    await store.close();
  });

  it('an app on the database logs and answers without the password', async () => {
    const url = withSecret(await db.createDatabase());
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const logger = pino({ level: 'trace' }, sink);
    const dir = tempDir('svc-dburl-app-');
    const config = parseConfig({
      data_dir: dir,
      database_url: url,
      project: { public_token: 'dburl002:local' },
      targets: [{ host: '127.0.0.1:9', scheme: 'http' }],
    });
    const first = await loadApp(config, { logger });
    // A crawl left running by a process that died: the next app to open the store marks it failed, and logs it.
    await first.store.sql.run(
      `INSERT INTO crawls (project, mode, status, started_at, owner_pid, heartbeat_at) VALUES ('dburl002:local', 'full', 'running', '2020-01-01T00:00:00.000Z', 1, 0)`,
    );
    await first.close();
    const app = await loadApp(config, { logger });
    try {
      const crawls = await app.backend.listCrawls({ limit: 5, offset: 0 });
      expect(crawls).toEqual([expect.objectContaining({ status: 'failed' })]);
      // Marked by the open's recovery or by the first sweep for dead owners, whichever reads it first.
      expect(lines.join('')).toMatch(
        /crawls (left running by a process that ended|whose owner stopped answering) were marked failed/,
      );
      expect(app.store.location).not.toContain(SECRET);
      expect(() => app.sqlite).toThrow(/SQLite store only/);
      try {
        void app.sqlite;
      } catch (e) {
        expect((e as Error).message).not.toContain(SECRET);
      }
    } finally {
      await app.close('test over');
    }
    expect(lines.join('')).not.toContain(SECRET);
  });

  it('svc crawl and svc report as processes, on SVC_DATABASE_URL: the crawl lands in PostgreSQL, not in data_dir', async () => {
    const site = await startSite({
      '/': html('<a href="/a">a</a> <a href="/missing">m</a>'),
      '/a': html('<p>a</p>'),
      '/missing': send(404),
    });
    const dir = tempDir('svc-dburl-cli-');
    const file = join(dir, 'svc.json');
    writeFileSync(
      file,
      JSON.stringify({
        project: { public_token: 'dburl003:local' },
        data_dir: join(dir, 'data'),
        targets: [{ host: site.host, scheme: 'http', track_links: 'all', request_timeout_ms: 2000 }],
      }),
    );
    const env = { SVC_DATABASE_URL: withSecret(await db.createDatabase()), SVC_LOG_LEVEL: 'debug' };
    const svc = async (args: string[]) => {
      const r = await runSvc([...args, '--config', file], { env });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    try {
      const crawl = await svc(['crawl', 'full']);
      expect(crawl.code, crawl.stderr).toBe(0);
      expect(JSON.parse(crawl.stdout.trim())).toMatchObject({ status: 'completed', stats: { pages: 2, errors: 1 } });
      const report = await svc(['report', '--format', 'json']);
      expect(report.code, report.stderr).toBe(0);
      expect(report.stdout).toContain(`${site.origin}/missing`);
      for (const r of [crawl, report]) expect(r.stdout + r.stderr).not.toContain(SECRET);
      const files = existsSync(join(dir, 'data'))
        ? readdirSync(join(dir, 'data'), { recursive: true }).map(String)
        : [];
      expect(files.filter((f) => /\.db$/.test(f))).toEqual([]);
    } finally {
      await site.close();
    }
  }, 60_000);
});
