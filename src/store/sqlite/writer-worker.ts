// Worker thread: commits a crawl's batches to SQLite on its own connection, beside the crawling thread. It opens a
// bare connection (not the Store), so the search code and the schemas are never loaded here.
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteConnection } from './connection.js';
import { writeBatch } from './crawl-writer.js';
import type { WriteBatch } from '../write-batches.js';

const { path } = workerData as { path: string };
// A second connection to a file the crawling process already opened and migrated; a smaller page cache.
const conn = new SqliteConnection(path, { cacheKb: 8000, busyTimeoutMs: 10_000 });

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
