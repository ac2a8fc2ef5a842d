// Worker thread: commits a crawl's batches to SQLite on its own connection, beside the crawling thread.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { Store } from '../backend/store/store.js';
import { writeBatch, type WriteBatch } from './writer.js';

const { path } = workerData as { path: string };
const db = new Database(path);
// Per-connection settings (journal_mode is a property of the file, set when the store opened it).
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 10000');
db.pragma('cache_size = -8000');
// The store functions need only a connection and a way to open a transaction.
const store = { db, prepare: (sql: string) => db.prepare(sql), tx: <T>(fn: () => T): T => db.transaction(fn).immediate() } as unknown as Store;

parentPort!.on('message', (m: { seq: number; batch?: WriteBatch; close?: true }) => {
  if (m.close) {
    db.close();
    parentPort!.close();
    return;
  }
  try {
    writeBatch(store, m.batch!);
    parentPort!.postMessage({ seq: m.seq });
  } catch (err) {
    parentPort!.postMessage({ seq: m.seq, error: err instanceof Error ? err.message : String(err) });
  }
});
