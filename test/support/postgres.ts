// A throw-away PostgreSQL cluster for tests: Debian's server binaries, initdb into a temporary directory as an
// unprivileged user (initdb refuses root), listening on a unix socket only (no TCP port), removed by stop(). One
// cluster serves the whole run (runCluster: started by the globalSetup in pg-template.ts, with a migrated template
// database), each test file taking fresh databases in it (pgFixture, stores.ts); the tests of restarts and outages
// start their own (startPostgres).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migratePg } from '../../src/store/pg/migrations/index.js';
import { PgSql, type PgSqlOptions } from '../../src/store/pg/pg-sql.js';

export interface PgCluster {
  /** The unix socket's directory: pg's `host`. */
  socketDir: string;
  port: number;
  user: string;
  /** postgres://svc@/postgres?host=<socketDir>&port=<port> */
  connectionString(database?: string): string;
  /** Stops the server and keeps its data (a restart's first half: every connection is closed). */
  halt(): void;
  /** Starts the halted server again on the same socket and data. */
  resume(): void;
  stop(): void;
  /** The migrated database new ones are copied from (the run's cluster), or null (a cluster of its own). */
  template: string | null;
}

const USER = 'svc';
/** Who owns the cluster when the tests run as root. */
const UNPRIVILEGED = 'nobody';

/** The newest installed server's bin directory (SVC_PG_BINDIR overrides), or null when none is installed. */
export function postgresBinDir(): string | null {
  if (process.env.SVC_PG_BINDIR) return process.env.SVC_PG_BINDIR;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, 'bin') : null;
}

/** The environment variable naming initdb's output made once for the whole run (test/support/pg-template.ts). */
export const TEMPLATE_ENV = 'SVC_PG_TEMPLATE';

/** A new directory for a cluster (or a template), and how to run a server command in it as the unprivileged user. */
function clusterDir(prefix: string): {
  dir: string;
  run: (cmd: string, args: string[]) => string;
  chown: (p: string) => void;
} {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    // From the cluster's own directory: the unprivileged user may not be able to enter the one the tests run in.
    execFileSync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', UNPRIVILEGED, '--', cmd, ...args] : args, {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
  const chown = (p: string) => {
    if (!asRoot) return;
    const uid = Number(execFileSync('id', ['-u', UNPRIVILEGED], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', UNPRIVILEGED], { encoding: 'utf8' }).trim());
    chownSync(p, uid, gid);
  };
  chown(dir);
  return { dir, run, chown };
}

const initdb = (bin: string, run: (cmd: string, args: string[]) => string, data: string) =>
  run(join(bin, 'initdb'), ['-D', data, '-U', USER, '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);

/**
 * initdb once for a whole test run (a vitest globalSetup): every cluster then starts from a copy of its output, a
 * fraction of a second instead of initdb's seconds. Returns the directory (its `data` is the template) and its removal.
 */
export function makeTemplate(): { dir: string; remove(): void } | null {
  const bin = postgresBinDir();
  if (!bin) return null;
  const { dir, run } = clusterDir('svc-pg-template-');
  try {
    initdb(bin, run, join(dir, 'data'));
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** startPostgres's server settings beyond the socket: none that a test is about (durability off: it is thrown away). */
const SERVER_SETTINGS = '-c fsync=off -c full_page_writes=off -c synchronous_commit=off';

export function startPostgres(opts: { maxConnections?: number } = {}): PgCluster {
  const bin = postgresBinDir();
  if (!bin)
    throw new Error('no PostgreSQL server is installed (Debian: apt-get install postgresql; .ci/run installs it)');
  const { dir, run, chown } = clusterDir('svc-pg-');
  const data = join(dir, 'data');
  const socketDir = join(dir, 'sock');
  mkdirSync(socketDir);
  chown(socketDir);
  const template = process.env[TEMPLATE_ENV];
  // A port number only names the socket file; one per cluster so clusters started side by side do not collide.
  const port = 20_000 + (process.pid % 20_000);
  const start = () =>
    run(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-k ${socketDir} -c listen_addresses= -p ${port} ${SERVER_SETTINGS}` +
        (opts.maxConnections ? ` -c max_connections=${opts.maxConnections}` : ''),
      'start',
    ]);
  try {
    if (template && existsSync(join(template, 'data', 'PG_VERSION'))) run('cp', ['-a', join(template, 'data'), data]);
    else initdb(bin, run, data);
    start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let stopped = false;
  return {
    socketDir,
    port,
    user: USER,
    template: null,
    connectionString: (database = 'postgres') =>
      `postgres://${USER}@/${database}?host=${encodeURIComponent(socketDir)}&port=${port}`,
    halt: () => void run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']),
    resume: () => void start(),
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Runs `fn` on a connection to the cluster's `postgres` database, closed after. */
async function asAdmin<T>(cluster: Pick<PgCluster, 'connectionString'>, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: cluster.connectionString() });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Creates database `name` in the cluster: empty, or with `migrated` a copy of the cluster's migrated template (the
 * run's cluster; an empty one elsewhere). FILE_COPY on PostgreSQL 15+: a few ms, not the copy through the WAL.
 */
export async function createDatabase(
  cluster: PgCluster,
  name: string,
  opts: { migrated?: boolean } = {},
): Promise<void> {
  const from = opts.migrated && cluster.template ? ` TEMPLATE ${cluster.template}` : '';
  await asAdmin(cluster, async (admin) => {
    const { rows } = await admin.query<{ v: number }>(`SELECT current_setting('server_version_num')::int AS v`);
    await admin.query(`CREATE DATABASE ${name}${from}${rows[0]!.v >= 150000 ? ' STRATEGY FILE_COPY' : ''}`);
  });
}

/** Drops databases a test file made (its connections closed or not), so a run's cluster does not fill its disk. */
export async function dropDatabases(cluster: PgCluster, names: readonly string[]): Promise<void> {
  if (!names.length) return;
  await asAdmin(cluster, async (admin) => {
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}

/** A database name no other test file of the run takes (they share one cluster). */
export function uniqueDatabaseName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** The environment variable naming the run's cluster (socket, port, template database; set by pg-template.ts). */
export const CLUSTER_ENV = 'SVC_PG_RUN_CLUSTER';

interface RunClusterInfo {
  socketDir: string;
  port: number;
  template: string;
}

/**
 * The run's cluster, shared by every test file (stop() leaves it running: the globalSetup stops it at the end); a
 * cluster of this file's own when the run has none (a file run outside the config's globalSetup).
 */
export function runCluster(): PgCluster {
  const env = process.env[CLUSTER_ENV];
  if (!env) return startPostgres();
  const info = JSON.parse(env) as RunClusterInfo;
  const refuse = () => {
    throw new Error("the run's shared cluster cannot be halted: start a cluster of the test's own (startPostgres)");
  };
  return {
    socketDir: info.socketDir,
    port: info.port,
    user: USER,
    template: info.template,
    connectionString: (database = 'postgres') =>
      `postgres://${USER}@/${database}?host=${encodeURIComponent(info.socketDir)}&port=${info.port}`,
    halt: refuse,
    resume: refuse,
    stop() {},
  };
}

/**
 * The globalSetup's half: starts the run's cluster (from the initdb template) and makes its template database, in
 * which each schema of `schemas` ('' for the default one) is migrated as a fresh store would migrate it. Returns the
 * cluster; its description goes into CLUSTER_ENV.
 */
export async function startRunCluster(schemas: readonly string[]): Promise<{ cluster: PgCluster; info: string }> {
  // Two workers, each file with a few pools of a few connections, and svc processes with their own: more than 100.
  const cluster = startPostgres({ maxConnections: 400 });
  const template = 'svc_template';
  try {
    await createDatabase(cluster, template);
    for (const schema of schemas) {
      const sql = new PgSql({ connectionString: cluster.connectionString(template), schema: schema || undefined });
      try {
        await migratePg(sql);
      } finally {
        await sql.close();
      }
    }
  } catch (err) {
    cluster.stop();
    throw err;
  }
  const info: RunClusterInfo = { socketDir: cluster.socketDir, port: cluster.port, template };
  return { cluster: { ...cluster, template }, info: JSON.stringify(info) };
}

// CI installs postgresql (.ci/run), so there the tests must run; elsewhere they run when a server is installed.
export const skip = !postgresBinDir() && !process.env.CI;

export interface PgFixture {
  cluster: PgCluster;
  /** A new empty database; its name. */
  createDatabase(): Promise<string>;
  /** A PgSql on a new database (migrated unless `migrate: false`); closed by close(). */
  open(opts?: Partial<PgSqlOptions> & { migrate?: boolean; database?: string }): Promise<PgSql>;
  close(): Promise<void>;
}

export function pgFixture(): PgFixture {
  const cluster = runCluster();
  const opened: PgSql[] = [];
  const made: string[] = [];
  const newDatabase = async (migrated = false) => {
    const name = uniqueDatabaseName('t');
    await createDatabase(cluster, name, { migrated });
    made.push(name);
    return name;
  };
  return {
    cluster,
    createDatabase: () => newDatabase(),
    async open(opts = {}) {
      const migrate = opts.migrate !== false;
      // A new database to migrate starts from the migrated template: migratePg then finds nothing to do on the
      // default schema, as on any database already up to date.
      const database = opts.database ?? (await newDatabase(migrate && !opts.schema));
      const sql = new PgSql({ connectionString: cluster.connectionString(database), ...opts });
      opened.push(sql);
      if (migrate) await migratePg(sql);
      return sql;
    },
    async close() {
      await Promise.allSettled(opened.map((s) => s.close()));
      try {
        await dropDatabases(cluster, made);
      } finally {
        cluster.stop();
      }
    },
  };
}
