// Worker thread: commits a crawl's batches to SQLite on its own connection, beside the crawling thread. It opens a
// bare connection (not the Store), so the search code and the schemas are never loaded here.
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteConnection } from './connection.js';
import { writeBatch } from './crawl-writer.js';
import type { WriteBatch } from '../write-batches.js';

const { path } = workerData as { path: string };
// A second connection to a file the crawling process already opened and migrated; a smaller page cache.
const conn = new SqliteConnection(path, { cacheKb: 8000, busyTimeoutMs: 10_000 });
// Its commits copy the log into the database every 8,000 pages (32 MB) instead of SQLite's 1,000: a crawl's batches
// rewrite the same B-tree pages, and each checkpoint copies them and syncs (the PostgreSQL manual's first crawl: 19 syncs on this thread, now 4).
conn.db.pragma('wal_autocheckpoint = 8000');

parentPort!.on('message', (m: { seq: number; batch?: WriteBatch; close?: true }) => {
  if (m.close) {
    conn.close();
    parentPort!.close();
    return;
  }
  try {
    writeBatch(conn, m.batch!);
    parentPort!.postMessage({ seq: m.seq });
  } catch (err) {
    parentPort!.postMessage({ seq: m.seq, error: err instanceof Error ? err.message : String(err) });
  }
});
