// npm run bench:search — builds search indexes of 10,000 and 100,000 pages from real text (the PostgreSQL
// manual served on loopback by serve-docs-site.sh, its ~1,170 pages repeated under varied URLs) and prints:
// index build rate, database size, search latency p50/p95/p99 over a fixed set of queries drawn from the
// corpus' own words, and peak RSS. Each size is built and searched in its own child process, so peak RSS
// is that size's alone.
//   BENCH_SIZES=10000,100000  BENCH_BATCH=500  BENCH_PASSES=3
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { searchPages } from '../src/backend/search/search.js';
import { extractHtml } from '../src/crawler/html.js';
import { savePages, type PageWrite } from '../src/backend/store/pages.js';
import { Store } from '../src/backend/store/store.js';
import { printTable, summarize } from './lib/measure.js';
import { startDocsSite } from './lib/services.js';

const DOCS_DIR = '/usr/share/doc/postgresql-doc-15/html';
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const PASSES = Number(process.env.BENCH_PASSES ?? 3);
const QUERY_COUNT = 240;

interface Doc {
  path: string;
  title: string;
  text: string;
}

interface Result {
  pages: number;
  buildSeconds: number;
  pagesPerSecond: number;
  dbMb: number;
  p50: number;
  p95: number;
  p99: number;
  queries: number;
  meanTotal: number;
  zeroHitQueries: number;
  peakRssMb: number;
}

// ---------- corpus ----------

async function fetchCorpus(base: string): Promise<Doc[]> {
  const files = readdirSync(DOCS_DIR).filter((f) => f.endsWith('.html')).sort();
  const docs: Doc[] = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const f = files[next++]!;
      const url = new URL(f, base).href;
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${f}: HTTP ${res.status}`);
      // The crawler's own extractor: the index gets the text a crawl of this site would give it.
      const { title, text } = extractHtml(await res.text(), { url });
      docs.push({ path: f, title, text });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return docs.sort((a, b) => a.path.localeCompare(b.path));
}

// ---------- queries ----------

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A fixed set of queries from the corpus' own words: 1–3 words picked per document (so common words come up as
 * often as they do in the text), a third of them with the last word cut to 3–5 letters, as while typing.
 */
function makeQueries(docs: Doc[], count: number): string[] {
  const rand = mulberry32(20261121);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const queries: string[] = [];
  while (queries.length < count) {
    const doc = pick(docs);
    const words = doc.text.toLowerCase().match(/\p{L}{3,}/gu) ?? [];
    if (words.length < 10) continue;
    const n = 1 + Math.floor(rand() * 3);
    const at = Math.floor(rand() * (words.length - n));
    const q = words.slice(at, at + n);
    if (rand() < 0.33) {
      const last = q[q.length - 1]!;
      q[q.length - 1] = last.slice(0, Math.min(last.length, 3 + Math.floor(rand() * 3)));
    }
    queries.push(q.join(' '));
  }
  return queries;
}

// ---------- one size (child process) ----------

function pageFor(doc: Doc, copy: number, host: string, base: string): PageWrite {
  return {
    url: `${base}c${copy}/${doc.path}`,
    host,
    httpStatus: 200,
    contentType: 'text/html',
    indexed: true,
    // One page in a hundred is hidden, as a CMS's showInSearch: false would make it.
    showInSearch: copy % 100 !== 99,
    title: doc.title,
    language: copy % 10 === 9 ? 'fi' : 'en',
    tags: ['public', `domain/${host}`, `section/${copy % 7}`],
    superwords: [],
    content: doc.text,
    meta: null,
    created: null,
    modified: null,
    sitemapLastmod: null,
    crawlId: 1,
    links: [],
  };
}

async function runSize(pages: number, corpusFile: string, base: string): Promise<Result> {
  const { docs, queries } = JSON.parse(readFileSync(corpusFile, 'utf8')) as { docs: Doc[]; queries: string[] };
  const host = new URL(base).host;
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-search-'));
  const dbPath = join(dir, 'svc.db');
  const store = new Store(dbPath);

  const t0 = performance.now();
  let batch: PageWrite[] = [];
  for (let i = 0; i < pages; i++) {
    batch.push(pageFor(docs[i % docs.length]!, Math.floor(i / docs.length), host, base));
    if (batch.length === BATCH || i === pages - 1) {
      savePages(store, batch);
      batch = [];
    }
  }
  store.db.prepare(`INSERT INTO pages_fts(pages_fts) VALUES ('optimize')`).run();
  const buildSeconds = (performance.now() - t0) / 1000;
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const dbMb = ['svc.db', 'svc.db-wal'].reduce((n, f) => n + (statSync(join(dir, f), { throwIfNoEntry: false })?.size ?? 0), 0) / 2 ** 20;

  // One untimed pass warms SQLite's page cache, as a serving process would be.
  for (const q of queries) searchPages(store, q, {});
  const samples: number[] = [];
  let totals = 0;
  let zero = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    for (const q of queries) {
      const t = performance.now();
      const r = searchPages(store, q, {});
      samples.push(performance.now() - t);
      if (pass === 0) {
        totals += r.total;
        if (!r.total) zero++;
      }
    }
  }
  const s = summarize(samples);
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    pages,
    buildSeconds,
    pagesPerSecond: pages / buildSeconds,
    dbMb,
    p50: s.p50,
    p95: s.p95,
    p99: s.p99,
    queries: queries.length,
    meanTotal: totals / queries.length,
    zeroHitQueries: zero,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

function runChild(pages: number, corpusFile: string, base: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--child', String(pages), corpusFile, base], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (m) => resolve(m as Result));
    child.once('exit', (code) => (code ? reject(new Error(`bench child for ${pages} pages exited with ${code}`)) : undefined));
  });
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    const result = await runSize(Number(process.argv[3]), process.argv[4]!, process.argv[5]!);
    process.send!(result);
    return;
  }
  const base = startDocsSite();
  const t = performance.now();
  const docs = await fetchCorpus(base);
  const fetchSeconds = (performance.now() - t) / 1000;
  const textMb = docs.reduce((n, d) => n + d.text.length, 0) / 2 ** 20;
  const queries = makeQueries(docs, QUERY_COUNT);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-corpus-'));
  const corpusFile = join(dir, 'corpus.json');
  writeFileSync(corpusFile, JSON.stringify({ docs, queries }));
  console.log(
    `corpus: ${docs.length} pages fetched from ${base} in ${fetchSeconds.toFixed(1)} s, ${textMb.toFixed(1)} MB of text ` +
      `(${Math.round((textMb * 2 ** 20) / docs.length)} chars/page); ${queries.length} queries × ${PASSES} passes; batches of ${BATCH}`,
  );
  console.log(`sample queries: ${queries.slice(0, 8).map((q) => JSON.stringify(q)).join(', ')}`);
  const results: Result[] = [];
  for (const n of SIZES) results.push(await runChild(n, corpusFile, base));
  if (process.env.BENCH_KEEP_CORPUS) console.log(`corpus kept in ${corpusFile}`);
  else rmSync(dir, { recursive: true, force: true });
  console.log('');
  printTable(
    ['pages', 'build s', 'build pages/s', 'db MB', 'search p50 ms', 'p95 ms', 'p99 ms', 'queries', 'mean total', 'no-hit queries', 'peak RSS MB'],
    results.map((r) => [r.pages, r.buildSeconds, Math.round(r.pagesPerSecond), Math.round(r.dbMb), r.p50, r.p95, r.p99, r.queries * PASSES, Math.round(r.meanTotal), r.zeroHitQueries, Math.round(r.peakRssMb)]),
  );
  const big = results.find((r) => r.pages === 100_000);
  if (big) {
    const ok = (b: boolean) => (b ? 'met' : 'MISSED');
    console.log(
      `\ntargets at 100,000 pages: p50 < 2 ms ${ok(big.p50 < 2)}, p99 < 20 ms ${ok(big.p99 < 20)}, ` +
        `build >= 2,000 pages/s ${ok(big.pagesPerSecond >= 2000)}, peak RSS < 300 MB ${ok(big.peakRssMb < 300)}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
