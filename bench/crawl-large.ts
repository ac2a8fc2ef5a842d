// npm run bench:crawl-large — one `svc crawl full` of a generated site of BENCH_PAGES pages (default 1,000,000),
// served on loopback by this process: page n links to pages 2n+1 and 2n+2 (so walking reaches every page, breadth
// first) and every 100th page to a missing one. It prints, at 100k, 300k and 1M pages fetched (those within the
// size), the time since the start, the pages/s so far and svc's peak RSS so far (VmHWM, the kernel's high-water mark,
// read from /proc at the checkpoint); at the end the whole process's wall time and peak RSS from `/usr/bin/time`
// (the kernel's ru_maxrss when it is reaped), and the crawl's record.
// The question it answers: does a crawl's memory stay flat as the site grows, and how fast does it go.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peakRssMb, printTable, runTimed, timedChildPid } from './lib/measure.js';
import { BENCH_TOKEN, SVC, svcEnv } from './lib/services.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 1_000_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const CHECKPOINTS = [10_000, 100_000, 300_000, 1_000_000].filter((n) => n <= PAGES);
const WORDS = 'crawl index search report link page site anchor title text words of a generated manual'.split(' ');

/** Page n's HTML: a title, a paragraph of words, its two children, the root, and now and then a missing page. */
function pageHtml(n: number): string {
  const text = Array.from({ length: 60 }, (_, i) => WORDS[(n * 7 + i * 3) % WORDS.length]).join(' ');
  const links = [2 * n + 1, 2 * n + 2].filter((c) => c < PAGES).map((c) => `<a href="/p/${c}.html">page ${c}</a>`);
  if (n % 100 === 0) links.push(`<a href="/missing/${n}.html">gone</a>`);
  return `<!doctype html><html lang="en"><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1><p>${text} ${n}</p><a href="/">home</a> ${links.join(' ')}</body></html>`;
}

async function main(): Promise<void> {
  let served = 0;
  const t0 = Date.now();
  const hits: { pages: number; s: number; peakMb: number }[] = [];
  let peakNow = () => 0;
  const server = createServer((req, res) => {
    const m = /^\/(?:p\/(\d+)\.html)?$/.exec(req.url ?? '');
    const n = m ? (m[1] === undefined ? 0 : Number(m[1])) : -1;
    if (n < 0 || n >= PAGES) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    served++;
    if (served === CHECKPOINTS[hits.length])
      hits.push({ pages: served, s: (Date.now() - t0) / 1000, peakMb: peakNow() });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(n));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-large-'));
  const config = join(dir, 'svc.json');
  writeFileSync(
    config,
    JSON.stringify({
      project: { public_token: BENCH_TOKEN },
      data_dir: join(dir, 'data'),
      targets: [
        {
          host,
          scheme: 'http',
          track_links: 'all',
          max_pages: 2 * PAGES,
          concurrency: CONCURRENCY,
          use_sitemap: false,
        },
      ],
      log_level: 'warn',
      rate_limits: { enabled: false },
    }),
  );
  console.error(`bench:crawl-large — ${PAGES} generated pages on ${host}, svc concurrency ${CONCURRENCY}`);
  // The checkpoints read VmHWM of svc itself (the child of /usr/bin/time): a high-water mark the kernel keeps, so a
  // read at a checkpoint misses no peak before it; the end's figure is ru_maxrss from /usr/bin/time.
  let timePid = 0;
  peakNow = () => {
    const pid = timedChildPid(timePid);
    return pid === undefined ? Number.NaN : peakRssMb(pid);
  };
  const run = await runTimed(SVC, ['crawl', 'full', '--config', config], svcEnv(), (pid) => (timePid = pid));
  const { code, stdout } = run;
  if (code !== 0) console.error(run.stderr);
  const wallS = (Date.now() - t0) / 1000;
  server.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(`\nbench:crawl-large — ${PAGES} generated pages, one full crawl, concurrency ${CONCURRENCY}\n`);
  printTable(
    ['pages fetched', 'seconds', 'pages/s so far', 'peak RSS so far MiB', 'CPU s'],
    [
      ...hits.map((h) => [h.pages, h.s, h.pages / h.s, h.peakMb, '']),
      [`${served} (svc's exit, code ${code})`, wallS, served / wallS, run.peakMb, run.cpuS],
    ],
  );
  console.log(
    `\nsvc's process (/usr/bin/time): ${run.wallS} s wall, ${run.cpuS.toFixed(1)} s CPU, peak RSS ${run.peakMb.toFixed(1)} MiB`,
  );
  const rec = stdout.trim().split('\n').at(-1);
  if (rec) console.log(`\nthe crawl's record: ${rec}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
