// A throw-away PostgreSQL cluster for benchmarks: the tests' cluster (test/support/postgres.ts), with Debian's
// `postgresql` installed first when it is missing and we may (root with apt-get), as serve-docs-site.sh does nginx.
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { postgresBinDir, startPostgres, type PgCluster } from '../../test/support/postgres.js';

export type { PgCluster };

function installPostgres(): void {
  const hint =
    "install Debian's postgresql package (apt-get install postgresql), or set SVC_PG_BINDIR to a PostgreSQL bin directory";
  let canApt = false;
  try {
    execFileSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' });
    canApt = process.getuid?.() === 0;
  } catch {
    canApt = false;
  }
  if (!canApt) throw new Error(`this benchmark needs a PostgreSQL server and none is installed: ${hint}`);
  console.error("bench: no PostgreSQL server installed; installing Debian's postgresql (it pulls no nodejs)");
  execFileSync(
    'sh',
    [
      '-c',
      'apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null',
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (!postgresBinDir())
    throw new Error(`installing postgresql left no server binaries under /usr/lib/postgresql: ${hint}`);
}

/** Starts a cluster (installing the server first when needed); stop() removes it. */
export function benchPostgres(): PgCluster {
  if (!postgresBinDir()) installPostgres();
  return startPostgres();
}

/** Creates an empty database in the cluster; returns its connection string. */
export async function createDatabase(cluster: PgCluster, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: cluster.connectionString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return cluster.connectionString(name);
}
