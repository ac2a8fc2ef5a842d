// Several connections to one fresh database, SQLite (a real file) or PostgreSQL (the throw-away cluster), for tests of
// what separate workers share. Each connection stands for one worker process.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/sqlite/store.js';
import type { Sql } from '../../src/store/sql.js';
import { ROOT } from './paths.js';
import { pgFixture, skip as pgSkip, type PgFixture } from './postgres.js';

export interface SharedDb {
  name: 'SQLite' | 'PostgreSQL';
  skip: boolean;
  /** How many workers the concurrency tests run (PostgreSQL serves more at once). */
  claimers: number;
  setup(): void;
  /** n connections to one new, migrated database. */
  connections(n: number): Promise<Sql[]>;
  teardown(): Promise<void>;
}

const BUSY_RE = /^SQLITE_BUSY/;

/**
 * A connection of another process waits for SQLite's write lock (busy_timeout) at BEGIN IMMEDIATE. Two connections
 * in one thread cannot: the waiting one would block the thread the holder needs to finish. So here a connection is
 * told at once that the lock is taken and asks again a moment later, as the waiting process would. The lock is taken
 * before a transaction reads anything, so asking again repeats nothing.
 */
function waitingForLock(inner: Sql): Sql {
  const again = async <T>(fn: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await fn();
      } catch (err) {
        if (!BUSY_RE.test((err as { code?: string }).code ?? '')) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * 3));
      }
    }
  };
  return {
    dialect: inner.dialect,
    get: (s, p) => again(() => inner.get(s, p)),
    all: (s, p) => again(() => inner.all(s, p)),
    run: (s, p) => again(() => inner.run(s, p)),
    exec: (s) => again(() => inner.exec(s)),
    tx: (fn) => again(() => inner.tx(fn)),
    rowTx: (fn) => again(() => inner.rowTx(fn)),
    snapshot: (fn) => again(() => inner.snapshot(fn)),
  };
}

export function sqliteDb(): SharedDb {
  const stores: Store[] = [];
  return {
    name: 'SQLite',
    skip: false,
    claimers: 2,
    setup() {},
    async connections(n) {
      const path = join(mkdtempSync(join(tmpdir(), 'svc-shared-')), 'svc.db');
      const out: Sql[] = [];
      for (let i = 0; i < n; i++) {
        const s = new Store(path, { busyTimeoutMs: 0, migrate: i === 0 });
        stores.push(s);
        out.push(waitingForLock(s.sql));
      }
      return out;
    },
    async teardown() {
      for (const s of stores.splice(0)) s.close();
    },
  };
}

export function pgDb(): SharedDb {
  let f: PgFixture | undefined;
  return {
    name: 'PostgreSQL',
    skip: pgSkip,
    claimers: 4,
    setup() {
      f = pgFixture();
    },
    async connections(n) {
      const database = await f!.createDatabase();
      const out: Sql[] = [];
      // One pool each, a few connections: each stands for a worker process.
      for (let i = 0; i < n; i++) out.push(await f!.open({ database, migrate: i === 0, max: 3 }));
      return out;
    },
    async teardown() {
      await f?.close();
    },
  };
}

/** Both databases, each to run the same cases. */
export function sharedDbs(): SharedDb[] {
  return [sqliteDb(), pgDb()];
}

/** A new SQLite file, migrated, for worker processes to share. */
export function sqliteFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-shared-')), 'svc.db');
  new Store(path).close();
  return path;
}

const WORKER_JS = join(ROOT, 'dist/test/support/shared-worker.js');

/** Runs test/support/shared-worker.ts (compiled: `npm run build` first) once per task, all at once; their results. */
export async function workerProcesses<R>(tasks: readonly object[]): Promise<R[]> {
  if (!existsSync(WORKER_JS)) throw new Error(`${WORKER_JS} is missing: run npm run build first`);
  return Promise.all(
    tasks.map(
      (task) =>
        new Promise<R>((resolve, reject) => {
          execFile(process.execPath, [WORKER_JS, JSON.stringify(task)], { timeout: 60_000 }, (err, stdout, stderr) => {
            if (err) reject(new Error(`worker process failed: ${err.message}\n${stderr}`));
            else resolve(JSON.parse(stdout) as R);
          });
        }),
    ),
  );
}
