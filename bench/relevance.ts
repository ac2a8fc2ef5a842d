// npm run bench:relevance — does search find the page a person wants? Known-item queries on real manuals from Debian
// packages (bench/relevance-queries/: per corpus, query → the wanted page, with the reason; the PostgreSQL manual is
// the tuning corpus, the others are only ever measured). Per corpus, in one run and on the same pages (read from disk
// by the crawler's own extractor, written through each store's crawl writer as a crawl writes them): svc on SQLite
// (a database file, as svc keeps it), svc on PostgreSQL (a throw-away cluster), MiniSearch in two configurations (any word with the last as a prefix
// and fuzzy 0.2, and every word), title boost 2 (as its README suggests), and Pagefind (npm `pagefind` indexes the
// same HTML files; its search runs in headless Chromium, served from loopback: bench/lib/pagefind.ts). Prints MRR@10 (1/rank of the wanted page
// when in the first 10, else 0, averaged), hits@1 and hits@10 per engine, each engine's p50/p99 per query (svc's own
// server `duration` too), and the queries svc does not answer first.
//   BENCH_CORPORA=apache,python (names' first words, lower case; default all)  BENCH_PG=0 (skip PostgreSQL)
//   BENCH_PAGEFIND=0 (skip Pagefind)
//   BENCH_VERBOSE=1 (every query's ranks, and the first 3 hits of each query svc misses at 1)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { optimizeIndex } from '../src/store/search-index/optimize.js';
import { PgStore } from '../src/store/pg/store.js';
import type { ServiceStore } from '../src/store/service-store.js';
import { Store } from '../src/store/sqlite/store.js';
import { docPage, readManual, type Doc } from './lib/docs-corpus.js';
import { printTable } from './lib/measure.js';
import { pagefindEngine } from './lib/pagefind.js';
import { benchPostgres, createDatabase, type PgCluster } from './lib/postgres.js';
import { CORPORA } from './relevance-queries/corpora.js';
import type { Corpus, KnownItem } from './relevance-queries/known-item.js';

const K = 10;
/** Where the pages say they were served: an address only (nothing is fetched). */
const BASE = 'http://127.0.0.1:18099/';

interface Engine {
  name: string;
  /** The paths of the first K hits, best first. */
  search(query: string): Promise<string[]>;
  /** svc's own `duration` of each search so far (the server's time, not the caller's). */
  durations?: number[];
  close(): Promise<void>;
}

async function svcEngine(name: string, store: ServiceStore, docs: Doc[]): Promise<Engine> {
  const sink = store.openCrawlWriter(1, { threaded: false });
  for (const d of docs) sink.page(docPage(d, new URL(d.path, BASE).href));
  await sink.drain();
  await sink.close();
  if (store instanceof Store) optimizeIndex(store);
  const durations: number[] = [];
  return {
    name,
    durations,
    search: async (q) => {
      const r = await store.searchPages(q, { size: K });
      durations.push(r.duration);
      return r.hits.map((h) => h.url.slice(BASE.length));
    },
    close: async () => store.close(),
  };
}

/**
 * MiniSearch in two configurations: its README's search-as-you-type (any word, the last as a prefix, fuzzy 0.2)
 * and every word required (AND), both with the title boosted 2 as its README suggests.
 */
function miniSearchEngines(docs: Doc[]): Engine[] {
  const ms = new MiniSearch<{ id: string; title: string; text: string }>({ fields: ['title', 'text'] });
  ms.addAll(docs.map((d) => ({ id: d.path, title: d.title, text: d.text })));
  const engine = (name: string, options: Parameters<typeof ms.search>[1]): Engine => ({
    name,
    search: async (q) =>
      ms
        .search(q, { boost: { title: 2 }, ...options })
        .slice(0, K)
        .map((r) => String(r.id)),
    close: async () => {},
  });
  return [
    engine('MiniSearch OR+prefix+fuzzy', { combineWith: 'OR', prefix: true, fuzzy: 0.2 }),
    engine('MiniSearch AND', { combineWith: 'AND' }),
  ];
}

interface Scored {
  name: string;
  ranks: (number | null)[];
  mrr: number;
  hits1: number;
  hits10: number;
  /** The caller's time per query, p50 and p99 (ms). */
  p50: number;
  p99: number;
  /** svc's server `duration` p50 (ms). */
  serverP50: number | null;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : 0;
};

async function score(engine: Engine, items: KnownItem[]): Promise<Scored> {
  const ranks: (number | null)[] = [];
  const times: number[] = [];
  engine.durations?.splice(0);
  for (const item of items) {
    const t = performance.now();
    const i = (await engine.search(item.query)).indexOf(item.page);
    times.push(performance.now() - t);
    ranks.push(i === -1 ? null : i + 1);
  }
  const n = items.length;
  return {
    name: engine.name,
    ranks,
    mrr: ranks.reduce<number>((s, r) => s + (r ? 1 / r : 0), 0) / n,
    hits1: ranks.filter((r) => r === 1).length,
    hits10: ranks.filter((r) => r !== null).length,
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    serverP50: engine.durations ? quantile(engine.durations, 0.5) : null,
  };
}

const rankText = (r: number | null) => (r ? String(r) : '-');
const pct = (a: number, n: number) => `${a}/${n} (${Math.round((100 * a) / n)}%)`;

/** One corpus: its engines built, its queries scored, its tables and targets printed; the summary row back. */
async function measure(corpus: Corpus, cluster: PgCluster | null, dbName: string): Promise<string[][]> {
  const items = corpus.items;
  if (!existsSync(corpus.root))
    throw new Error(`${corpus.name}: ${corpus.root} is missing: apt-get install ${corpus.debianPackage}`);
  const t = performance.now();
  const docs = readManual(corpus.root, corpus.pages, BASE);
  const read = performance.now() - t;
  const missing = items.filter((k) => !docs.some((d) => d.path === k.page));
  if (missing.length)
    throw new Error(`${corpus.name}: wanted pages not read: ${missing.map((m) => m.page).join(', ')}`);
  // Each engine is timed as soon as it is built, before the next is: its queries never share the machine with
  // another engine's start (PostgreSQL's work after a bulk load, Pagefind's indexer and browser).
  const engines: Engine[] = [];
  const results: Scored[] = [];
  let building = 0;
  const add = async (build: () => Promise<Engine | Engine[]>) => {
    const b = performance.now();
    const built = [await build()].flat();
    building += performance.now() - b;
    for (const e of built) {
      engines.push(e);
      results.push(await score(e, items));
    }
  };
  // A database file, as svc keeps its index (an in-memory database reads its pages otherwise).
  const sqliteDir = mkdtempSync(join(tmpdir(), 'svc-bench-relevance-'));
  await add(() => svcEngine('svc SQLite', new Store(join(sqliteDir, 'svc.db')), docs));
  if (cluster) {
    await add(async () => {
      const url = await createDatabase(cluster, dbName);
      const pg = await new PgStore({ url, token: 'bench001:local', max: 4 }).open();
      return svcEngine('svc PostgreSQL', pg, docs);
    });
  }
  await add(async () => miniSearchEngines(docs));
  if (process.env.BENCH_PAGEFIND !== '0') {
    await add(async () => {
      const pf = await pagefindEngine(
        corpus.root,
        docs.map((d) => d.path),
      );
      return { name: 'Pagefind', search: (q: string) => pf.search(q, K), close: () => pf.close() };
    });
  }
  const built = (read + building) / 1000;
  const n = items.length;
  console.log(
    `\n## ${corpus.name} (${corpus.role === 'tuning' ? 'tuning corpus' : 'measured only'}): ${n} known-item queries on ${docs.length} pages (read and indexed in ${built.toFixed(1)} s)\n`,
  );
  const svcs = results.filter((r) => r.name.startsWith('svc'));
  const shown = items
    .map((k, i) => ({ k, i }))
    .filter(({ i }) => process.env.BENCH_VERBOSE || svcs.some((r) => r.ranks[i] !== 1));
  if (shown.length) {
    console.log(
      process.env.BENCH_VERBOSE ? 'every query:' : 'queries svc does not answer first (- = not in the first 10):',
    );
    printTable(
      ['query', 'wanted page', ...results.map((r) => r.name)],
      shown.map(({ k, i }) => [k.query, k.page, ...results.map((r) => rankText(r.ranks[i]!))]),
    );
  }
  if (process.env.BENCH_VERBOSE) {
    for (const { k, i } of shown) {
      if (results[0]!.ranks[i] === 1) continue;
      console.log(`${k.query} → ${k.page}: ${(await engines[0]!.search(k.query)).slice(0, 3).join(', ')}`);
    }
  }
  console.log('');
  printTable(
    ['engine', `MRR@${K}`, 'hits@1', `hits@${K}`, 'p50 ms', 'p99 ms', 'server p50 ms'],
    results.map((r) => [
      r.name,
      r.mrr.toFixed(3),
      pct(r.hits1, n),
      `${r.hits10}/${n}`,
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      r.serverP50 === null ? '' : r.serverP50.toFixed(2),
    ]),
  );
  for (const e of engines) await e.close();
  rmSync(sqliteDir, { recursive: true, force: true });
  const others = results.filter((r) => !r.name.startsWith('svc'));
  const best = others.reduce((a, b) => (b.mrr > a.mrr ? b : a));
  const ok = (b: boolean) => (b ? 'met' : 'MISSED');
  const lines: string[] = [];
  for (const s of svcs) {
    lines.push(
      `${s.name}: MRR@${K} >= best other engine's + 0.05 (${s.mrr.toFixed(3)} vs ${best.name} ${(best.mrr + 0.05).toFixed(3)}) ${ok(s.mrr >= best.mrr + 0.05)}, hits@1 >= 80% (${Math.round((100 * s.hits1) / n)}%) ${ok(s.hits1 / n >= 0.8)}, server duration p50 <= 3 ms (${s.serverP50!.toFixed(2)}) ${ok(s.serverP50! <= 3)}`,
    );
  }
  if (svcs.length === 2)
    lines.push(
      `PostgreSQL within 0.01 MRR of SQLite (${svcs[1]!.mrr.toFixed(3)} vs ${svcs[0]!.mrr.toFixed(3)}) ${ok(Math.abs(svcs[1]!.mrr - svcs[0]!.mrr) <= 0.01)}`,
    );
  console.log(`\ntargets:\n${lines.map((l) => `- ${l}`).join('\n')}`);
  return results.map((r) => [corpus.name, corpus.role, r.name, r.mrr.toFixed(3), pct(r.hits1, n), `${r.hits10}/${n}`]);
}

async function main(): Promise<void> {
  const wanted = process.env.BENCH_CORPORA?.split(',').map((s) => s.trim().toLowerCase());
  const corpora = CORPORA.filter((c) => !wanted || wanted.includes(c.name.split(' ')[0]!.toLowerCase()));
  const cluster = process.env.BENCH_PG === '0' ? null : benchPostgres();
  try {
    const rows: string[][] = [];
    for (const [i, c] of corpora.entries()) rows.push(...(await measure(c, cluster, `relevance${i}`)));
    console.log('\n## Summary\n');
    printTable(['corpus', 'role', 'engine', `MRR@${K}`, 'hits@1', `hits@${K}`], rows);
  } finally {
    cluster?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
