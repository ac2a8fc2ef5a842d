// The crawl's writer thread as the built svc runs it: it commits a batch on its own bare connection (the page
// lands, searchable through the index's triggers) and loads neither the search code nor the schemas' zod.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { Store } from '../../../src/store/sqlite/store.js';
import type { WriteBatch } from '../../../src/store/write-batches.js';
import { ROOT } from '../../support/paths.js';
import { pageWrite } from '../../support/writes.js';

const SCRIPT = pathToFileURL(join(ROOT, 'dist/src/store/sqlite/writer-worker.js')).href;

// The writer script, run after a load hook that lists every module the thread loads.
const BOOT = `
const { registerHooks } = require('node:module');
const { parentPort } = require('node:worker_threads');
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
import(${JSON.stringify(SCRIPT)}).then(() => parentPort.postMessage({ loaded }));
`;

it('commits a batch on a bare connection, without the search code or zod', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-writer-')), 'svc.db');
  new Store(path).close();
  const worker = new Worker(BOOT, { eval: true, workerData: { path } });
  const replies: { loaded?: string[]; seq?: number; error?: string }[] = [];
  const next = () => new Promise<(typeof replies)[number]>((resolve) => worker.once('message', resolve));
  try {
    const { loaded } = await next();
    const batch: WriteBatch = {
      crawlId: 1,
      pages: [pageWrite('http://127.0.0.1:1/p', { title: 'Orchard', content: 'apples and pears' })],
      outcomes: [],
      touched: [],
      kept: [],
      removed: [],
      deferIndex: false,
    };
    worker.postMessage({ seq: 1, batch });
    replies.push(await next());
    expect(replies).toEqual([{ seq: 1 }]);
    expect(loaded!.some((u) => u.includes('/node_modules/better-sqlite3/'))).toBe(true);
    for (const part of ['/node_modules/zod/', '/src/store/search-index/search.js', '/src/store/sqlite/store.js'])
      expect(
        loaded!.some((u) => u.includes(part)),
        part,
      ).toBe(false);
  } finally {
    worker.postMessage({ seq: 2, close: true });
    await new Promise((resolve) => worker.once('exit', resolve));
  }
  const store = new Store(path);
  try {
    const hits = await store.searchPages('pears', {});
    expect(hits.hits.map((h) => h.url)).toEqual(['http://127.0.0.1:1/p']);
  } finally {
    store.close();
  }
});
