// npm run bench:relevance — does search find the page a person wants? Known-item queries on the PostgreSQL manual
// (bench/relevance-queries/postgresql.ts: query → the wanted page, with the reason), answered by svc and, in the same run and
// on the same pages (title + text as the crawler's extractor reads them), by MiniSearch with its default options
// and a title boost of 2 (as its README suggests). Prints MRR@10 (1/rank of the wanted page when in the first 10,
// else 0, averaged), hits@1 and hits@10 per engine, then each query's ranks.
//   BENCH_DOCS_PORT=18099  BENCH_VERBOSE=1 (also the first 3 hits of each query svc misses at 1)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { savePages } from '../src/store/sqlite/writes.js';
import { searchPages } from '../src/store/search-index/search.js';
import { optimizeIndex } from '../src/store/search-index/optimize.js';
import { Store } from '../src/store/sqlite/store.js';
import { docPage, fetchCorpus, type Doc } from './lib/docs-corpus.js';
import { printTable } from './lib/measure.js';
import { startDocsSite } from './lib/services.js';
import { POSTGRESQL } from './relevance-queries/postgresql.js';

const KNOWN_ITEMS = POSTGRESQL.items;

const K = 10;

interface Engine {
  name: string;
  /** The paths of the first K hits, best first. */
  search(query: string): string[];
}

function svcEngine(docs: Doc[], base: string): { engine: Engine; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-relevance-'));
  const store = new Store(join(dir, 'svc.db'));
  const pages = docs.map((d) => docPage(d, new URL(d.path, base).href));
  for (let i = 0; i < pages.length; i += 200) savePages(store, pages.slice(i, i + 200));
  optimizeIndex(store);
  return {
    engine: {
      name: 'svc',
      search: (q) => searchPages(store, q, { size: K }).hits.map((h) => h.url.slice(base.length)),
    },
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function miniSearchEngine(docs: Doc[]): Engine {
  const ms = new MiniSearch<{ id: string; title: string; text: string }>({ fields: ['title', 'text'] });
  ms.addAll(docs.map((d) => ({ id: d.path, title: d.title, text: d.text })));
  return {
    name: 'MiniSearch',
    search: (q) =>
      ms
        .search(q, { boost: { title: 2 } })
        .slice(0, K)
        .map((r) => String(r.id)),
  };
}

interface Scored {
  name: string;
  ranks: (number | null)[];
  mrr: number;
  hits1: number;
  hits10: number;
  msPerQuery: number;
}

function score(engine: Engine): Scored {
  const t = performance.now();
  const ranks = KNOWN_ITEMS.map((item) => {
    const i = engine.search(item.query).indexOf(item.page);
    return i === -1 ? null : i + 1;
  });
  const ms = (performance.now() - t) / KNOWN_ITEMS.length;
  const n = KNOWN_ITEMS.length;
  return {
    name: engine.name,
    ranks,
    mrr: ranks.reduce<number>((s, r) => s + (r ? 1 / r : 0), 0) / n,
    hits1: ranks.filter((r) => r === 1).length,
    hits10: ranks.filter((r) => r !== null).length,
    msPerQuery: ms,
  };
}

async function main(): Promise<void> {
  const base = startDocsSite();
  const docs = await fetchCorpus(base);
  const missing = KNOWN_ITEMS.filter((k) => !docs.some((d) => d.path === k.page));
  if (missing.length) throw new Error(`wanted pages not in the corpus: ${missing.map((m) => m.page).join(', ')}`);
  const svc = svcEngine(docs, base);
  const engines = [svc.engine, miniSearchEngine(docs)];
  const results = engines.map(score);
  const n = KNOWN_ITEMS.length;
  console.log(
    `${n} known-item queries on ${docs.length} pages of the PostgreSQL manual (${base}); rank = where the wanted page came, - = not in the first ${K}\n`,
  );
  printTable(
    ['query', 'wanted page', ...results.map((r) => r.name)],
    KNOWN_ITEMS.map((k, i) => [k.query, k.page, ...results.map((r) => (r.ranks[i] ? String(r.ranks[i]) : '-'))]),
  );
  if (process.env.BENCH_VERBOSE) {
    for (const [i, k] of KNOWN_ITEMS.entries()) {
      if (results[0]!.ranks[i] === 1) continue;
      console.log(
        `\n${k.query} → ${k.page} (svc rank ${results[0]!.ranks[i] ?? '-'}): ${svc.engine.search(k.query).slice(0, 3).join(', ')}`,
      );
    }
  }
  console.log('');
  printTable(
    ['engine', `MRR@${K}`, 'hits@1', `hits@${K}`, 'ms/query'],
    results.map((r) => [
      r.name,
      r.mrr.toFixed(3),
      `${r.hits1}/${n} (${Math.round((100 * r.hits1) / n)}%)`,
      `${r.hits10}/${n}`,
      r.msPerQuery,
    ]),
  );
  svc.close();
  const [s, m] = results as [Scored, Scored];
  const ok = (b: boolean) => (b ? 'met' : 'MISSED');
  console.log(
    `\ntargets: svc MRR@${K} >= MiniSearch's + 0.10 (${s.mrr.toFixed(3)} vs ${(m.mrr + 0.1).toFixed(3)}) ${ok(s.mrr >= m.mrr + 0.1)}, ` +
      `hits@1 >= 70% (${Math.round((100 * s.hits1) / n)}%) ${ok(s.hits1 / n >= 0.7)}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
