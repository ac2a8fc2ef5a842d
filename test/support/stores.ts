// The contract suite's stores: a fresh ServiceStore of each dialect available here — SQLite always; PostgreSQL on the
// run's cluster (a new database per store, copied from the migrated template) when a server is installed, and always
// in CI. `describe.each(DIALECTS)` runs a file's store-level tests on both.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { OutcomeWrite, PageWrite } from '../../src/model/crawl-writes.js';
import { PgStore } from '../../src/store/pg/store.js';
import type { ServiceStore } from '../../src/store/service-store.js';
import { Store } from '../../src/store/sqlite/store.js';
import {
  createDatabase,
  dropDatabases,
  postgresBinDir,
  runCluster,
  uniqueDatabaseName,
  type PgCluster,
} from './postgres.js';

export type StoreDialect = 'sqlite' | 'pg';

/** The project of a fresh store unless told (its schema is migrated in the run's template database). */
export const KIT_TOKEN = 'kit00001:local';

export const DIALECTS: StoreDialect[] = postgresBinDir() || process.env.CI ? ['sqlite', 'pg'] : ['sqlite'];

export interface FreshStore {
  store: ServiceStore;
  /** Another store on the same data (another process's connection), opened as the app opens one. */
  reopen(opts?: { deadAfterMs?: number }): Promise<ServiceStore>;
}

export interface StoreKit {
  readonly dialect: StoreDialect;
  /** A store on a new, empty database (a new file; a new PostgreSQL database), migrated. */
  fresh(opts?: { token?: string }): Promise<FreshStore>;
  /** The database_url of a new, empty database for an app (null on SQLite: the app's data_dir holds its file). */
  databaseUrl(): Promise<string | null>;
  /** Closes what fresh() opened and stops the cluster (afterAll). */
  stop(): Promise<void>;
}

export function storeKit(dialect: StoreDialect): StoreKit {
  const opened: ServiceStore[] = [];
  const track = <S extends ServiceStore>(s: S): S => (opened.push(s), s);
  let cluster: PgCluster | null = null;
  const made: string[] = [];
  const newDatabase = async (): Promise<string | null> => {
    if (dialect === 'sqlite') return null;
    cluster ??= runCluster();
    const name = uniqueDatabaseName('kit');
    await createDatabase(cluster, name, { migrated: true });
    made.push(name);
    return cluster.connectionString(name);
  };
  return {
    dialect,
    databaseUrl: newDatabase,
    async fresh(opts = {}) {
      if (dialect === 'sqlite') {
        const path = join(mkdtempSync(join(tmpdir(), 'svc-kit-')), 'svc.db');
        return {
          store: track(new Store(path)),
          reopen: async (o = {}) => track(new Store(path, { deadAfterMs: o.deadAfterMs })),
        };
      }
      const url = (await newDatabase())!;
      const token = opts.token ?? KIT_TOKEN;
      const open = (o: { deadAfterMs?: number } = {}) =>
        track(new PgStore({ url, token, deadAfterMs: o.deadAfterMs, max: 4 })).open();
      return { store: await open(), reopen: open };
    },
    async stop() {
      await Promise.allSettled(opened.map((s) => s.close()));
      if (!cluster) return;
      try {
        await dropDatabases(cluster, made);
      } finally {
        cluster.stop();
      }
    },
  };
}

/** Writes pages and outcomes as a crawl would (through the store's crawl writer, as crawl `crawlId`), on any store. */
export async function writeThrough(
  store: ServiceStore,
  w: { pages?: PageWrite[]; outcomes?: OutcomeWrite[] },
  crawlId = 1,
): Promise<void> {
  const sink = store.openCrawlWriter(crawlId, { threaded: false });
  for (const p of w.pages ?? []) sink.page(p);
  for (const o of w.outcomes ?? []) sink.outcome(o);
  await sink.drain();
  await sink.close();
}

/**
 * A ranking test's corpus: a fresh store of `dialect` holding `pages` (written as a crawl writes them) for the
 * describe block that calls this (its beforeAll and afterAll open and close it). `order(terms)`: the first hits'
 * URLs less `base`, best first.
 */
export function rankingCorpus(
  dialect: StoreDialect,
  pages: PageWrite[],
  base: string,
): { order(terms: string): Promise<string[]> } {
  let kit: StoreKit;
  let store: ServiceStore;
  beforeAll(async () => {
    kit = storeKit(dialect);
    store = (await kit.fresh()).store;
    await writeThrough(store, { pages });
  });
  afterAll(async () => kit.stop());
  return {
    order: async (terms) => (await store.searchPages(terms, { size: 5 })).hits.map((h) => h.url.slice(base.length)),
  };
}
