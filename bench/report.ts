// npm run bench:report — the link report over HTTP on a store of 1,000,000 link rows (10% problem links over
// 50,000 pages, 5 hosts). The /v1 facade runs in a child process (this file with --serve); the parent measures
// latency p50/p95 sequentially and requests/s under 16 concurrent clients. Targets: p50 < 20 ms (limit 1000),
// < 60 ms (limit 5000). Nothing leaves loopback: the five hosts are never contacted.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { loadApp, type App } from '../src/app/open-app.js';
import { createApiKey } from '../src/auth/keys.js';
import { createV1Handler } from '../src/http/v1.js';
import { createCrawl, setCrawlStatus } from '../src/store/crawls.js';
import { saveOutcomes, savePages } from '../src/store/sqlite/writes.js';
import type { ConfigInput } from '../src/model/config.js';
import { parseConfig } from '../src/cli/load-config.js';
import { createHttpServer } from '../src/http/http-server.js';
import { silentLogger } from '../src/lib/log.js';
import { printTable, summarize } from './lib/measure.js';
import type { LinkReason } from '../src/model/link-reasons.js';
import type { OutcomeWrite, PageWrite } from '../src/model/crawl-writes.js';
import { httpDeps } from '../src/app/http.js';

const TOKEN = 'bench001:eu-north-1';
const HOSTS = [1, 2, 3, 4, 5].map((i) => `site${i}.example`);
const PAGES_PER_HOST = 10_000;
const LINKS_PER_PAGE = 20;
const PROBLEM_LINKS_PER_PAGE = 2; // 10%
const PROBLEM_URLS_PER_HOST = 4_000; // each problem URL is linked from ~5 pages
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const CANNON_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

function configFor(dataDir: string): ConfigInput {
  return {
    project: { public_token: TOKEN },
    data_dir: dataDir,
    targets: HOSTS.map((host) => ({ host, track_links: 'all' as const })),
    log_level: 'warn',
  };
}

const pageUrl = (h: number, k: number) => `https://${HOSTS[h]}/section-${k % 50}/page-${k}`;
const problemUrl = (h: number, j: number) => `https://${HOSTS[h]}/gone/item-${j}`;
/** 40% not_found, 10% forbidden, 15% server_error, 25% redirect, 10% unknown. */
function problemReason(j: number): LinkReason {
  const m = j % 20;
  return m < 8 ? 'not_found' : m < 10 ? 'forbidden' : m < 13 ? 'server_error' : m < 18 ? 'redirect' : 'unknown';
}
const STATUS: Record<LinkReason, number> = {
  not_found: 404,
  forbidden: 403,
  server_error: 500,
  redirect: 301,
  unknown: 0,
};

/** Writes pages with their links, then the outcomes, through the crawler's own store writes (so triggers run). */
async function fill(app: App): Promise<{ pages: number; links: number; problemLinks: number; seconds: number }> {
  const t0 = performance.now();
  const crawl = (await createCrawl(app.store.sql, TOKEN, 'full'))!;
  let links = 0;
  let problemLinks = 0;
  for (let h = 0; h < HOSTS.length; h++) {
    let batch: PageWrite[] = [];
    for (let k = 0; k < PAGES_PER_HOST; k++) {
      const pl = [];
      for (let j = 0; j < LINKS_PER_PAGE - PROBLEM_LINKS_PER_PAGE; j++)
        pl.push({ url: pageUrl(h, (k + 1 + j * 37) % PAGES_PER_HOST), element: 'a', text: `link ${j}` });
      pl.push({ url: problemUrl(h, (k * 7) % PROBLEM_URLS_PER_HOST), element: 'a', text: 'a broken link' });
      pl.push({ url: problemUrl(h, (k * 13 + 1) % PROBLEM_URLS_PER_HOST), element: 'img', text: 'a picture' });
      links += pl.length;
      problemLinks += PROBLEM_LINKS_PER_PAGE;
      batch.push({
        url: pageUrl(h, k),
        host: HOSTS[h]!,
        httpStatus: 200,
        contentType: 'text/html',
        indexed: true,
        showInSearch: true,
        title: `Page ${k} of ${HOSTS[h]}`,
        language: 'en',
        tags: ['public'],
        superwords: [],
        content: `page ${k} body text`,
        meta: null,
        created: null,
        modified: null,
        sitemapLastmod: '2026-01-01',
        crawlId: crawl.id,
        links: pl,
      });
      if (batch.length === 1000) {
        savePages(app.sqlite, batch);
        batch = [];
      }
    }
    savePages(app.sqlite, batch);
    const outcomes: OutcomeWrite[] = [];
    for (let k = 0; k < PAGES_PER_HOST; k++)
      outcomes.push({
        url: pageUrl(h, k),
        httpStatus: 200,
        reason: 'ok',
        message: 'OK',
        redirectsTo: null,
        crawlId: crawl.id,
      });
    for (let j = 0; j < PROBLEM_URLS_PER_HOST; j++) {
      const reason = problemReason(j);
      outcomes.push({
        url: problemUrl(h, j),
        httpStatus: STATUS[reason],
        reason,
        message: reason === 'unknown' ? 'not fetched: max_pages reached' : reason,
        redirectsTo: reason === 'redirect' ? `https://${HOSTS[h]}/moved/item-${j}` : null,
        crawlId: crawl.id,
      });
    }
    saveOutcomes(app.sqlite, outcomes);
  }
  await setCrawlStatus(app.store.sql, crawl.id, 'completed');
  app.sqlite.db.pragma('wal_checkpoint(TRUNCATE)');
  app.sqlite.db.exec('ANALYZE');
  return { pages: HOSTS.length * PAGES_PER_HOST, links, problemLinks, seconds: (performance.now() - t0) / 1000 };
}

/** Child: serve the filled store with the /v1 facade only, and say where. */
async function serveChild(dataDir: string): Promise<void> {
  const app = await loadApp(parseConfig(configFor(dataDir)), { logger: silentLogger });
  const server = createHttpServer({ logger: app.logger, handlers: [createV1Handler(httpDeps(app))] });
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address() as { port: number };
    process.send!({ port: addr.port });
  });
  process.on('disconnect', () => {
    server.close();
    void app.close().then(() => process.exit(0));
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-report-'));
  const dataDir = join(dir, 'data');
  const app = await loadApp(parseConfig(configFor(dataDir)), { logger: silentLogger });
  console.error('filling the store …');
  const filled = await fill(app);
  const key = (await createApiKey(app.store.sql, TOKEN, 'bench')).key;
  await app.close();
  console.error(
    `filled: ${filled.pages} pages, ${filled.links} link rows (${filled.problemLinks} problem) in ${filled.seconds.toFixed(1)} s`,
  );

  const child = fork(fileURLToPath(import.meta.url), ['--serve', dataDir], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the facade exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${port}/v1/projects/${encodeURIComponent(TOKEN)}/link-report`;
  const headers = { authorization: `Bearer ${key}` };
  const agent = new Agent({ connections: 1 });

  const cases = [
    { name: 'limit 1000', query: '?limit=1000', target: 20 },
    { name: 'limit 5000', query: '?limit=5000', target: 60 },
    { name: `limit 1000, target ${HOSTS[2]}`, query: `?limit=1000&target=${HOSTS[2]}`, target: 20 },
    { name: `limit 5000, target ${HOSTS[2]}`, query: `?limit=5000&target=${HOSTS[2]}`, target: 60 },
  ];
  const rows: (string | number)[][] = [];
  for (const c of cases) {
    const times: number[] = [];
    let bytes = 0;
    let links = 0;
    for (let i = 0; i < SAMPLES + 20; i++) {
      const t = performance.now();
      const res = await request(base + c.query, { headers, dispatcher: agent });
      const text = await res.body.text();
      const ms = performance.now() - t;
      if (res.statusCode !== 200) throw new Error(`${c.name}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
      if (i >= 20) times.push(ms);
      if (i === 0) {
        bytes = text.length;
        const r = JSON.parse(text) as Record<string, { pages?: { links: unknown[] }[] }>;
        links = ['notFound', 'forbidden', 'serverError', 'redirect', 'unknown'].reduce(
          (n, s) => n + r[s]!.pages!.reduce((m, p) => m + p.links.length, 0),
          0,
        );
      }
    }
    const s = summarize(times);
    rows.push([
      c.name,
      links,
      `${(bytes / 1024).toFixed(0)} kB`,
      s.p50,
      s.p95,
      c.target,
      s.p50 < c.target ? 'met' : 'MISSED',
    ]);
  }
  await agent.close();

  const cannon: (string | number)[][] = [];
  for (const c of [cases[0]!, cases[2]!]) {
    const r = await autocannon({ url: base + c.query, connections: 16, duration: CANNON_SECONDS, headers });
    cannon.push([c.name, r.requests.average, r.latency.p50, r.latency.p99, r['2xx'], r.non2xx + r.errors + r.timeouts]);
  }
  child.disconnect();
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });

  console.log(
    `\nstore: ${filled.links} link rows, ${filled.problemLinks} problem links, ${filled.pages} pages, ${HOSTS.length} hosts; written through savePages/saveOutcomes in ${filled.seconds.toFixed(1)} s`,
  );
  console.log(`\nlink report over HTTP (loopback, ${SAMPLES} sequential requests per row)\n`);
  printTable(['case', 'links returned', 'body', 'p50 ms', 'p95 ms', 'target p50 ms', ''], rows);
  console.log(`\n16 concurrent clients, ${CANNON_SECONDS} s each (autocannon)\n`);
  printTable(['case', 'requests/s', 'latency p50 ms', 'latency p99 ms', '2xx', 'errors'], cannon);
}

if (process.argv[2] === '--serve') {
  void serveChild(process.argv[3]!);
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
