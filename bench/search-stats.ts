// npm run bench:search-stats — what search analytics cost a search: the same queries through the embedded backend
// (where every surface's search passes and is recorded) with analytics on (search_stats.retention_days 90) and off
// (0), on one SQLite store of the PostgreSQL manual's pages repeated to BENCH_PAGES, in alternating passes so load
// on the machine falls on both alike. Reported: CPU per query on the search's path (what a caller waits for, on an
// idle machine), the process's CPU per search over a whole pass (the batched writes that follow included: off the
// path, but the process pays them), and the write alone per search recorded. The target (issue: "a query with
// analytics on costs at most 5% more") compares the whole pass, on against off.
// Then it times reading the analytics (GET …/search-stats) of BENCH_READ_ROWS searches recorded over 90 days.
//   BENCH_PAGES=10000  BENCH_PASSES=6  BENCH_READ_ROWS=300000
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EmbeddedBackend } from '../src/backend/embedded.js';
import { RECORD_FLUSH_MS, SearchRecorder } from '../src/backend/search-recorder.js';
import { parseConfig } from '../src/cli/load-config.js';
import { silentLogger } from '../src/lib/log.js';
import type { PageWrite } from '../src/model/crawl-writes.js';
import { optimizeIndex } from '../src/store/search-index/optimize.js';
import { recordSearches, type SearchRecord } from '../src/store/search-stats.js';
import { Store } from '../src/store/sqlite/store.js';
import { savePages } from '../src/store/sqlite/writes.js';
import { docPage, readManual } from './lib/docs-corpus.js';
import { printTable, summarize } from './lib/measure.js';
import { mulberry32 } from './lib/random.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 10_000);
const PASSES = Number(process.env.BENCH_PASSES ?? 6);
const MANUAL = '/usr/share/doc/postgresql-doc-15/html';
const HOST = '127.0.0.1:18099';
const BASE = `http://${HOST}/`;
const QUERIES = 240;
/** Searches recorded for the read's measure, and the project they are recorded in. */
const READ_ROWS = Number(process.env.BENCH_READ_ROWS ?? 300_000);
const READ_PROJECT = 'read0001:eu-north-1';
const DAY_MS = 86_400_000;

const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** 1–3 consecutive words of a random page (a third with the last word cut, as while typing), a tenth misspelt. */
function queries(texts: string[]): string[] {
  const rand = mulberry32(43);
  const out: string[] = [];
  while (out.length < QUERIES) {
    const words = texts[Math.floor(rand() * texts.length)]!.toLowerCase().match(/\p{L}{3,}/gu) ?? [];
    if (words.length < 10) continue;
    const n = 1 + Math.floor(rand() * 3);
    const at = Math.floor(rand() * (words.length - n));
    const q = words.slice(at, at + n);
    if (rand() < 0.33) q[n - 1] = q[n - 1]!.slice(0, 3 + Math.floor(rand() * 3));
    else if (rand() < 0.1) q[n - 1] = `${q[n - 1]}x`;
    out.push(q.join(' '));
  }
  return out;
}

async function main(): Promise<void> {
  const docs = readManual(MANUAL, (f) => f.endsWith('.html'), BASE);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-search-stats-'));
  const store = new Store(join(dir, 'svc.db'));
  let batch: PageWrite[] = [];
  for (let i = 0; i < PAGES; i++) {
    const doc = docs[i % docs.length]!;
    batch.push(docPage(doc, `${BASE}c${Math.floor(i / docs.length)}/${doc.path}`));
    if (batch.length === 500 || i === PAGES - 1) {
      savePages(store, batch);
      batch = [];
    }
  }
  optimizeIndex(store);
  const qs = queries(docs.map((d) => d.text));
  const backend = (days: number) =>
    new EmbeddedBackend({
      config: parseConfig({ targets: [{ host: HOST, scheme: 'http' }], search_stats: { retention_days: days } }),
      store,
      logger: silentLogger,
    });
  const on = backend(90);
  const off = backend(0);
  // Warm both (the index's pages in the cache, the statements prepared).
  for (const q of qs) {
    await on.search(q, {});
    await off.search(q, {});
  }

  const perQuery: Record<'on' | 'off', number[]> = { on: [], off: [] };
  const passRatios: number[] = [];
  const passMeans: Record<'on' | 'off', number[]> = { on: [], off: [] };
  const writeMs: number[] = [];
  const recordNs: number[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    // Paired: each query on and off back to back, which first alternating, so load on the machine (it changes
    // by the second) falls on both alike; a pass's ratio compares the same queries at the same moments.
    const sum = { on: 0, off: 0 };
    for (let i = 0; i < qs.length; i++) {
      const order: ('on' | 'off')[] = (i + pass) % 2 ? ['off', 'on'] : ['on', 'off'];
      for (const which of order) {
        const c = process.cpuUsage();
        await (which === 'on' ? on : off).search(qs[i]!, {});
        const ms = cpuMs(process.cpuUsage(c));
        perQuery[which].push(ms);
        sum[which] += ms;
      }
    }
    passRatios.push(sum.on / sum.off);
    passMeans.on.push(sum.on / qs.length);
    passMeans.off.push(sum.off / qs.length);
    // The write that follows, measured apart (the backend's own lands in whichever search its timer interrupts): a
    // recorder like the backend's, the same searches, one flush, one batch. And what record() costs a search.
    const recorder = new SearchRecorder({
      sql: store.sql,
      project: 'bench001:eu-north-1',
      retentionDays: 90,
      logger: silentLogger,
    });
    const t = process.hrtime.bigint();
    for (const q of qs) recorder.record(q, 3);
    recordNs.push(Number(process.hrtime.bigint() - t) / qs.length);
    const c = process.cpuUsage();
    await recorder.flush();
    writeMs.push(cpuMs(process.cpuUsage(c)) / qs.length);
    await sleep(RECORD_FLUSH_MS + 100);
  }
  // Reading the analytics of a busy site: READ_ROWS searches over 89 days, a long tail of terms (a few searched
  // often, most once or twice), a twentieth with no result.
  const rand = mulberry32(7);
  const now = Date.now();
  for (let i = 0; i < READ_ROWS; i += 10_000) {
    const rows: SearchRecord[] = [];
    for (let j = 0; j < Math.min(10_000, READ_ROWS - i); j++) {
      const k = Math.floor(1 / rand() ** 1.2) % 50_000;
      rows.push({
        terms: `term ${k}`,
        hits: k % 20 === 7 ? 0 : 1 + (k % 13),
        at: new Date(now - rand() * 89 * DAY_MS).toISOString(),
      });
    }
    await recordSearches(store.sql, READ_PROJECT, rows);
  }
  const reader = new EmbeddedBackend({
    config: parseConfig({ project: { public_token: READ_PROJECT }, targets: [{ host: HOST, scheme: 'http' }] }),
    store,
    logger: silentLogger,
  });
  const readMs: number[] = [];
  let distinct = 0;
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    distinct = (await reader.searchStats({})).totals.queries;
    readMs.push(performance.now() - t);
  }
  await reader.close();
  await on.close();
  // Counted before `off` closes: its last flush prunes with retention 0, which deletes the project's records.
  const rows = (await store.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM search_queries'))!.n;
  await off.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });

  const write = median(writeMs);
  const offMean = median(passMeans.off);
  console.log(
    `search analytics: ${PAGES} pages, ${qs.length} queries × ${PASSES} passes, each on and off back to back; ${rows} rows recorded; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`,
  );
  const s = { on: summarize(perQuery.on), off: summarize(perQuery.off) };
  printTable(
    ['analytics', 'CPU ms per search (median of passes)', 'p50', 'p99'],
    [
      ['off', offMean.toFixed(3), s.off.p50.toFixed(3), s.off.p99.toFixed(3)],
      ['on (the search path)', median(passMeans.on).toFixed(3), s.on.p50.toFixed(3), s.on.p99.toFixed(3)],
    ],
  );
  console.log(`per pass, on/off: ${passRatios.map((x) => x.toFixed(3)).join(' ')}`);
  console.log(
    `record() on the search path: ${(median(recordNs) / 1000).toFixed(2)} µs; the batched write after it: ${write.toFixed(4)} ms CPU per search`,
  );
  console.log(
    `reading the analytics of ${READ_ROWS} searches (${distinct} distinct queries) over 90 days: ${median(readMs).toFixed(0)} ms (median of 3; wall clock)`,
  );
  const path = median(passRatios);
  console.log(
    `on/off: ${path.toFixed(3)} on the search path (median of passes); ${(path + write / offMean).toFixed(3)} with the write added (target ≤ 1.05); by parts: ${(1 + (median(recordNs) / 1e6 + write) / offMean).toFixed(4)}`,
  );
}

await main();
