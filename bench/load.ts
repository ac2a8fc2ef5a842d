// npm run bench:load — loopback load on `svc serve`: search and link-report at 50 concurrent connections
// for 30 s while full crawls of the PostgreSQL manual run. Prints requests/s, p50/p99, errors, peak RSS.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { printTable, watchPeakRss } from './lib/measure.js';
import { BENCH_TOKEN, serve, startDocsSite, svc, writeDocsConfig } from './lib/services.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 30);
const CONNECTIONS = 50;
const TOKEN = BENCH_TOKEN;

async function main(): Promise<void> {
  const site = new URL(startDocsSite());
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-load-'));
  const config = join(dir, 'svc.json');
  writeDocsConfig(config, site, join(dir, 'data'), { start_paths: ['/index.html'], concurrency: 8 });

  const key = svc(['keys', 'create', '--config', config, '--name', 'bench']).trim();
  const server = await serve(['--config', config, '--port', '0']);
  const api = `${server.baseUrl}/v1/projects/${encodeURIComponent(TOKEN)}`;
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  const startCrawl = async () =>
    (await fetch(`${api}/crawls`, { method: 'POST', headers: auth, body: JSON.stringify({ mode: 'full' }) })).status;
  const waitIdle = async () => {
    for (;;) {
      const list = (await (await fetch(`${api}/crawls?limit=1`, { headers: auth })).json()) as
        | { status: string }[]
        | { crawls: { status: string }[] };
      const latest = Array.isArray(list) ? list[0] : list.crawls[0];
      if (!latest || (latest.status !== 'queued' && latest.status !== 'running')) return latest?.status;
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  console.error('initial full crawl …');
  await startCrawl();
  console.error(`initial crawl ${await waitIdle()}`);

  const rss = watchPeakRss(server.proc.pid!);
  let loading = true;
  let crawlsStarted = 0;
  const crawler = (async () => {
    while (loading) {
      if ((await startCrawl()) === 202) crawlsStarted++;
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  const [search, report] = await Promise.all([
    autocannon({
      url: `${api}/search`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ terms: 'create table', params: { size: 10 } }),
      connections: CONNECTIONS / 2,
      duration: DURATION_S,
    }),
    autocannon({
      url: `${api}/link-report?limit=1000`,
      headers: { authorization: `Bearer ${key}` },
      connections: CONNECTIONS / 2,
      duration: DURATION_S,
    }),
  ]);
  loading = false;
  await crawler;
  const peak = rss.stop();
  await server.stop();

  console.log(
    `\nbench:load — ${CONNECTIONS} connections (${CONNECTIONS / 2} per endpoint), ${DURATION_S} s, ${crawlsStarted} full crawl(s) started during the load\n`,
  );
  printTable(
    ['endpoint', 'requests/s', 'p50 ms', 'p99 ms', 'requests', 'errors', 'non-2xx', 'peak RSS MB'],
    [
      [
        'POST /search',
        search.requests.average,
        search.latency.p50,
        search.latency.p99,
        search.requests.total,
        search.errors + search.timeouts,
        search.non2xx,
        peak,
      ],
      [
        'GET /link-report',
        report.requests.average,
        report.latency.p50,
        report.latency.p99,
        report.requests.total,
        report.errors + report.timeouts,
        report.non2xx,
        peak,
      ],
    ],
  );
  if (search.errors + search.timeouts + search.non2xx + report.errors + report.timeouts + report.non2xx > 0)
    process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
