// npm run bench:workers — one site crawled by 1, 2 and 4 `svc worker` processes on one PostgreSQL database.
// A throw-away cluster (bench/lib/postgres.ts) holds a new database per run; the site is served here on 127.0.0.1:
// BENCH_PAGES HTML pages (default 2,000), each linking to ~10 others (a tree, so every page is reachable, plus random
// links, so pages are found many times over), each answering after BENCH_LATENCY_MS (default 20 ms), robots.txt and
// no sitemap, so the crawl walks links. `svc crawl full --queue` queues one full crawl, then N workers start together
// and share it; the run ends when the crawl record says it ended. A discarded 1-worker crawl warms up first.
// Per run: pages stored, seconds (the site's first request to the crawl's end), pages/s, the most requests the site
// had in flight at once (the target's `concurrency` is the cap across all workers), requests/s, and the page URLs
// fetched more than once (robots.txt excluded). Each worker has its own config that differs only in an
// X-Bench-Worker request header, so the site can say which worker fetched what.
// The speed target: 2 workers ≥ 1.6× one worker's pages/s (the site's latency, not the CPU, is the bottleneck).
// Exit status 1 when a crawl did not complete with every page, went over the concurrency, or fetched a page twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadApp, type App } from '../src/app/open-app.js';
import { parseConfig } from '../src/cli/load-config.js';
import { silentLogger } from '../src/lib/log.js';
import type { CrawlRecord } from '../src/model/types.js';
import { linkSite } from './lib/link-site.js';
import { printTable } from './lib/measure.js';
import { benchPostgres, createDatabase } from './lib/postgres.js';
import { BENCH_TOKEN, SVC, svcAsync } from './lib/services.js';

const COUNTS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map((s) => Number(s.trim()));
const PAGES = Number(process.env.BENCH_PAGES ?? 2000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
/** The target's `concurrency`: requests in flight to the site, across all workers. */
const HOST_CONCURRENCY = Number(process.env.BENCH_HOST_CONCURRENCY ?? 4);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 300);
/** One discarded 1-worker crawl first (BENCH_WARMUP=0: none). */
const WARMUP = process.env.BENCH_WARMUP !== '0';
const WORKER_HEADER = 'x-bench-worker';

if (COUNTS.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(PAGES) || PAGES < 2) {
  console.error(
    'BENCH_WORKERS must be a comma-separated list of worker counts (e.g. "1,2,4") and BENCH_PAGES a number ≥ 2',
  );
  process.exit(2);
}

// ---- svc ------------------------------------------------------------------------------------------------------

/**
 * BENCH_WORKER_ARGS, else `--concurrency 2`: each worker keeps 2 pages in flight, so one worker leaves the site's
 * 4 slots half used and the site's latency, not this 2-core machine's CPU, bounds what more workers add.
 */
function workerArgs(): { args: string[]; note: string } {
  const env = process.env.BENCH_WORKER_ARGS;
  if (env !== undefined) return { args: env.split(/\s+/).filter(Boolean), note: `BENCH_WORKER_ARGS: "${env}"` };
  return { args: ['--concurrency', '2'], note: '--concurrency 2' };
}

function writeConfig(dir: string, databaseUrl: string, host: string, worker: string): string {
  const file = join(dir, `${worker}.json`);
  const raw = {
    project: { public_token: BENCH_TOKEN },
    data_dir: join(dir, 'data'),
    database_url: databaseUrl,
    log_level: 'warn',
    targets: [
      {
        host,
        scheme: 'http',
        use_sitemap: false,
        walk_links: true,
        concurrency: HOST_CONCURRENCY,
        crawl_delay_ms: 0,
        max_pages: PAGES + 1000,
        request_headers: { [WORKER_HEADER]: worker },
      },
    ],
  };
  writeFileSync(file, JSON.stringify(raw));
  return file;
}

interface Result {
  workers: number;
  status: string;
  pages: number;
  seconds: number;
  wallSeconds: number;
  maxInFlight: number;
  requestsPerS: number;
  duplicates: number;
  unfetched: number;
  byWorker: string;
}

function stopWorker(p: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (p.exitCode !== null || p.signalCode !== null) return done();
    const kill = setTimeout(() => p.kill('SIGKILL'), 15_000);
    p.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    p.kill('SIGTERM');
  });
}

async function runOnce(n: number, databaseUrl: string, extraArgs: string[]): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), `svc-bench-workers-${n}-`));
  const { site, counts } = await linkSite({ pages: PAGES, latencyMs: LATENCY_MS, workerHeader: WORKER_HEADER });
  const configs = Array.from({ length: n }, (_, i) => writeConfig(dir, databaseUrl, site.host, `w${i + 1}`));
  const workers: { proc: ChildProcess; stderr: string }[] = [];
  let app: App | null = null;
  try {
    const queued = await svcAsync(['crawl', 'full', '--queue', '--config', configs[0]!]);
    if (queued.code !== 0) throw new Error(`svc crawl full --queue exited with ${queued.code}: ${queued.stderr}`);
    const id = (JSON.parse(queued.stdout.trim().split('\n').pop()!) as CrawlRecord).id;
    // Opened once the queueing command has migrated the database; only reads the crawl record.
    app = await loadApp(
      parseConfig({ project: { public_token: BENCH_TOKEN }, data_dir: join(dir, 'data'), database_url: databaseUrl }),
      { logger: silentLogger },
    );
    const t0 = Date.now();
    for (const config of configs) {
      const proc = spawn(process.execPath, [SVC, 'worker', '--config', config, ...extraArgs], {
        env: { ...process.env, SVC_CONFIG: '' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const w = { proc, stderr: '' };
      proc.stderr!.setEncoding('utf8').on('data', (c: string) => (w.stderr = (w.stderr + c).slice(-4000)));
      workers.push(w);
    }
    let rec: CrawlRecord | null = null;
    const deadline = t0 + TIMEOUT_S * 1000;
    for (;;) {
      rec = await app.backend.getCrawl(id);
      if (rec && rec.status !== 'queued' && rec.status !== 'running') break;
      const dead = workers.find((w) => w.proc.exitCode !== null);
      if (dead) throw new Error(`svc worker exited with ${dead.proc.exitCode} before the crawl ended:\n${dead.stderr}`);
      if (Date.now() > deadline)
        throw new Error(`crawl ${id} did not end within ${TIMEOUT_S} s (BENCH_TIMEOUT_S); it is ${rec?.status}`);
      await sleep(50);
    }
    const endAt = rec.finishedAt ? Date.parse(rec.finishedAt) : Date.now();
    await Promise.all(workers.map((w) => stopWorker(w.proc)));
    const seconds = (endAt - counts.firstAt) / 1000;
    const gets = [...counts.pageGets.values()];
    const pageGets = gets.reduce((a, b) => a + b, 0);
    const activeS = Math.max(0.001, (counts.lastAt - counts.firstAt) / 1000);
    // Every worker, idle ones too (0), and any header the site did not expect.
    const names = [...new Set([...configs.map((_, i) => `w${i + 1}`), ...counts.byWorker.keys()])];
    const byWorker = names.map((w) => `${w} ${counts.byWorker.get(w) ?? 0}`).join(' · ');
    if (rec.status !== 'completed')
      console.error(
        `crawl ${id} with ${n} worker(s) ended ${rec.status}: ${rec.error ?? ''}\n${workers.map((w) => w.stderr).join('\n')}`,
      );
    return {
      workers: n,
      status: rec.status,
      pages: rec.stats.pages,
      seconds,
      wallSeconds: (endAt - t0) / 1000,
      maxInFlight: counts.maxInFlight,
      requestsPerS: (pageGets + counts.other) / activeS,
      duplicates: gets.filter((c) => c > 1).length,
      unfetched: PAGES - gets.length,
      byWorker,
    };
  } finally {
    await Promise.all(workers.map((w) => stopWorker(w.proc)));
    await app?.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const cluster = benchPostgres();
  const results: Result[] = [];
  let note = '';
  try {
    const args = await workerArgs();
    note = args.note;
    console.error(
      `bench:workers — ${PAGES} pages answering after ${LATENCY_MS} ms, target concurrency ${HOST_CONCURRENCY}, workers ${COUNTS.join(', ')} (worker args: ${args.note}), ` +
        `${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}`,
    );
    if (WARMUP) {
      // Discarded: the first crawl on a fresh cluster and cold caches would make the first row look slow.
      const r = await runOnce(1, await createDatabase(cluster, 'bench_workers_warmup'), args.args);
      console.error(
        `  warm-up, 1 worker: crawl ${r.status}, ${r.pages} pages in ${r.seconds.toFixed(2)} s (not in the table)`,
      );
    }
    for (const n of COUNTS) {
      const url = await createDatabase(cluster, `bench_workers_${n}_${results.length}`);
      const r = await runOnce(n, url, args.args);
      console.error(
        `  ${n} worker(s): crawl ${r.status}, ${r.pages} pages in ${r.seconds.toFixed(2)} s, max in flight ${r.maxInFlight}, ${r.duplicates} duplicate GETs`,
      );
      results.push(r);
    }
  } finally {
    cluster.stop();
  }

  const base = results.find((r) => r.workers === 1);
  const rate = (r: Result) => r.pages / r.seconds;
  const problems = (r: Result): string[] => [
    ...(r.status !== 'completed' ? [`crawl ${r.status}`] : []),
    ...(r.pages !== PAGES || r.unfetched ? [`${r.pages} of ${PAGES} pages stored, ${r.unfetched} never fetched`] : []),
    ...(r.maxInFlight > HOST_CONCURRENCY ? [`${r.maxInFlight} in flight > ${HOST_CONCURRENCY}`] : []),
    ...(r.duplicates ? [`${r.duplicates} pages fetched twice`] : []),
  ];
  console.log(
    `\n## bench:workers — ${PAGES} pages, ${LATENCY_MS} ms per page, target concurrency ${HOST_CONCURRENCY}; svc worker ${note}; ` +
      `${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)} at the end\n`,
  );
  printTable(
    [
      'workers',
      'pages',
      'seconds',
      'pages/s',
      'speed-up vs 1',
      `max in flight (limit ${HOST_CONCURRENCY})`,
      'requests/s',
      'duplicate GETs',
      'page GETs per worker',
      'wall s (from start)',
      'verdict',
    ],
    results.map((r) => [
      r.workers,
      r.pages,
      r.seconds,
      rate(r),
      base ? `${(rate(r) / rate(base)).toFixed(2)}×` : '–',
      r.maxInFlight,
      r.requestsPerS,
      r.duplicates,
      r.byWorker,
      r.wallSeconds,
      problems(r).join('; ') || 'ok',
    ]),
  );
  console.log(
    "\nseconds: from the site's first request to the end the crawl record gives; wall s: from the first worker's start (process start and the queue poll included).",
  );
  const two = results.find((r) => r.workers === 2);
  if (base && two) {
    const x = rate(two) / rate(base);
    console.log(`target: 2 workers ≥ 1.6× one worker's pages/s — ${x.toFixed(2)}×: ${x >= 1.6 ? 'met' : 'NOT met'}`);
  } else {
    console.log("target: 2 workers ≥ 1.6× one worker's pages/s — not measured (BENCH_WORKERS needs 1 and 2)");
  }
  const bad = results.filter((r) => problems(r).length);
  if (bad.length) {
    console.log(
      `FAILED (correctness): ${bad.map((r) => `${r.workers} worker(s): ${problems(r).join('; ')}`).join(' | ')}`,
    );
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
