// One throw-away cluster per test file (test/support/postgres.ts), and a fresh database in it per use.
import { createDatabase as createClusterDatabase, postgresBinDir, startPostgres, type PgCluster } from '../../support/postgres.js';
import { PgSql, type PgSqlOptions } from '../../../src/store/pg/pg-sql.js';
import { migratePg } from '../../../src/store/pg/migrations/index.js';

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
  const cluster = startPostgres();
  const opened: PgSql[] = [];
  let n = 0;
  const createDatabase = async () => {
    const name = `t${++n}`;
    await createClusterDatabase(cluster, name);
    return name;
  };
  return {
    cluster,
    createDatabase,
    async open(opts = {}) {
      const database = opts.database ?? (await createDatabase());
      const sql = new PgSql({ connectionString: cluster.connectionString(database), ...opts });
      opened.push(sql);
      if (opts.migrate !== false) await migratePg(sql);
      return sql;
    },
    async close() {
      await Promise.allSettled(opened.map((s) => s.close()));
      cluster.stop();
    },
  };
}
