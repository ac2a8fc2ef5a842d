// npm run bench:crawl — crawls the PostgreSQL manual (nginx on 127.0.0.1:18099) with `svc crawl full` and with
// linkinator 6 (--recurse, same host only), alternately, BENCH_ROUNDS times each, and prints one table with the
// median run of each: wall time, pages/s, peak RSS (the median over all runs), requests made (nginx access log)
// and broken links found.
// A third row is the floor of the libraries every such crawl is built on (lib/crawl-floor.ts): undici fetching the
// HTML pages svc found, htmlparser2 parsing them on a second thread, nothing else.
// Only loopback is ever contacted: links off the site are excluded (svc: skip_link_patterns, linkinator: --skip).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { printTable, watchPeakRss } from './lib/measure.js';
import { docsSiteLog, escapeRe, ROOT, startDocsSite, SVC, writeDocsConfig } from './lib/services.js';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LINKINATOR = join(ROOT, 'node_modules/linkinator/build/src/cli.js');
const FLOOR = join(ROOT, 'dist/bench/lib/crawl-floor.js');
const FLOOR_AGENT = 'svc-bench-floor';

interface Run {
  tool: string;
  wallS: number;
  cpuS: number;
  pages: number;
  peakMb: number;
  requests: number;
  broken: Set<string>;
  brokenPairs: number | null;
}

/** CPU seconds (user + system, all threads) a live process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Runs a command to its end, sampling its peak RSS and CPU time; resolves with stdout and the wall time. */
function measure(args: string[]): Promise<{ stdout: string; stderr: string; code: number | null; wallS: number; peakMb: number; cpuS: number }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const rss = watchPeakRss(child.pid!, 20);
    let cpuS = 0;
    const cpuTimer = setInterval(() => {
      const v = cpuSeconds(child.pid!);
      if (Number.isFinite(v)) cpuS = v;
    }, 20);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-20_000)));
    child.on('error', reject);
    // Read the peak before the process is reaped (its /proc entry goes with it).
    child.on('exit', () => {
      const peakMb = rss.stop();
      clearInterval(cpuTimer);
      const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
      child.on('close', (code) => resolve({ stdout, stderr, code, wallS, peakMb, cpuS }));
    });
  });
}

/** Requests in the access log sent with this user agent, and how many of them fetched an HTML page. */
function countRequests(logPath: string, agent: string): { requests: number; pages: number } {
  let requests = 0;
  let pages = 0;
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line.includes(agent)) continue;
    requests++;
    const m = /"GET ([^ "]+) HTTP\/[\d.]+" 200 /.exec(line);
    if (m && /(\/|\.html?)(\?.*)?$/.test(m[1]!)) pages++;
  }
  return { requests, pages };
}

type Measured = Awaited<ReturnType<typeof measure>>;

/** A row of the table: the measured process and the requests the access log credits to it. */
function runOf(tool: string, r: Measured, counted: { requests: number; pages: number }, broken: Set<string>, brokenPairs: number | null): Run {
  return { tool, wallS: r.wallS, cpuS: r.cpuS, pages: counted.pages, peakMb: r.peakMb, requests: counted.requests, broken, brokenPairs };
}

async function runSvc(site: URL, logPath: string, round: number): Promise<Run & { pageUrls: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-crawl-'));
  const agent = `svc-bench-${process.pid}-${round}`;
  const config = join(dir, 'svc.json');
  writeDocsConfig(config, site, join(dir, 'data'), {
    start_paths: ['/'],
    max_pages: 100_000,
    concurrency: CONCURRENCY,
    request_headers: { 'user-agent': agent },
  }, 'warn');

  truncateSync(logPath, 0);
  const r = await measure([SVC, 'crawl', 'full', '--config', config]);
  if (r.code !== 0) throw new Error(`svc crawl exited ${r.code}:\n${r.stderr}`);
  const db = new Database(join(dir, 'data', 'svc.db'), { readonly: true });
  const rows = db
    .prepare(`SELECT o.url AS url, count(*) AS n FROM links l JOIN link_outcomes o ON o.url = l.url WHERE o.reason IN ('not_found','forbidden','server_error') GROUP BY o.url`)
    .all() as { url: string; n: number }[];
  const pageUrls = db.prepare(`SELECT url FROM pages WHERE content_type LIKE 'text/html%'`).pluck().all() as string[];
  db.close();
  rmSync(dir, { recursive: true, force: true });
  const broken = new Set(rows.map((x) => x.url));
  return { ...runOf('svc', r, countRequests(logPath, agent), broken, rows.reduce((n, x) => n + x.n, 0)), pageUrls };
}

/** The libraries alone on the pages svc found (see lib/crawl-floor.ts): a lower bound for any crawler built on them. */
async function runFloor(logPath: string, pageUrls: string[]): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-floor-'));
  const list = join(dir, 'urls.txt');
  writeFileSync(list, pageUrls.join('\n'));
  truncateSync(logPath, 0);
  const r = await measure([FLOOR, list, String(CONCURRENCY), FLOOR_AGENT]);
  rmSync(dir, { recursive: true, force: true });
  if (r.code !== 0) throw new Error(`crawl floor exited ${r.code}:\n${r.stderr}`);
  return runOf('floor: undici + htmlparser2 only', r, countRequests(logPath, FLOOR_AGENT), new Set(), null);
}

async function runLinkinator(site: URL, logPath: string): Promise<Run> {
  // linkinator 6's CLI ignores --user-agent: its requests carry its fixed default agent.
  const agent = 'Chrome/79.0.3945.117 Safari/537.36';
  truncateSync(logPath, 0);
  const r = await measure([LINKINATOR, site.href, '--recurse', '--skip', `^(?!${escapeRe(site.origin)}/)`, '--format', 'json']);
  // linkinator exits 1 when it found broken links; its JSON report is what counts.
  const report = JSON.parse(r.stdout) as { links: { url: string; state: string }[] };
  const broken = new Set(report.links.filter((l) => l.state === 'BROKEN').map((l) => l.url));
  return runOf('linkinator 6', r, countRequests(logPath, agent), broken, null);
}

/** The median run by wall time, with the median peak RSS of all runs (a process's peak varies run to run with when V8 collects). */
function median(runs: Run[]): Run {
  const s = [...runs].sort((a, b) => a.wallS - b.wallS);
  const peaks = runs.map((r) => r.peakMb).sort((a, b) => a - b);
  return { ...s[Math.floor((s.length - 1) / 2)]!, peakMb: peaks[Math.floor((peaks.length - 1) / 2)]! };
}

async function main(): Promise<void> {
  const site = new URL(startDocsSite());
  const logPath = docsSiteLog();
  console.error(`bench:crawl — ${site.href}, ${ROUNDS} round(s) per tool, svc concurrency ${CONCURRENCY}, ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}`);
  const svcRuns: Run[] = [];
  const lkRuns: Run[] = [];
  const floorRuns: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const a = await runSvc(site, logPath, round);
    svcRuns.push(a);
    console.error(`  round ${round} svc: ${a.wallS.toFixed(2)} s (CPU ${a.cpuS.toFixed(2)} s), ${a.pages} pages, ${a.peakMb.toFixed(0)} MB`);
    const b = await runLinkinator(site, logPath);
    lkRuns.push(b);
    console.error(`  round ${round} linkinator: ${b.wallS.toFixed(2)} s (CPU ${b.cpuS.toFixed(2)} s), ${b.pages} pages, ${b.peakMb.toFixed(0)} MB`);
    const c = await runFloor(logPath, a.pageUrls);
    floorRuns.push(c);
    console.error(`  round ${round} floor: ${c.wallS.toFixed(2)} s (CPU ${c.cpuS.toFixed(2)} s), ${c.pages} pages, ${c.peakMb.toFixed(0)} MB`);
  }
  const s = median(svcRuns);
  const l = median(lkRuns);
  const f = median(floorRuns);
  const rate = (r: Run) => r.pages / r.wallS;
  console.log(
    `\nbench:crawl — PostgreSQL 15 manual on ${site.host}, full crawl, same host only; median of ${ROUNDS} run(s) each; ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)} at the end\n`,
  );
  printTable(
    ['tool', 'wall s', 'CPU s', 'pages', 'pages/s', 'peak RSS MB', 'requests', 'broken URLs', 'broken (page, link)'],
    [s, l, f].map((r) => [r.tool, r.wallS, r.cpuS, r.pages, rate(r), r.peakMb, r.requests, r === f ? 'n/a' : r.broken.size, r === f ? 'n/a' : (r.brokenPairs ?? 'n/a (one per URL)')]),
  );
  const same = s.broken.size === l.broken.size && [...s.broken].every((u) => l.broken.has(u));
  console.log(`\nsvc / linkinator: ${(rate(s) / rate(l)).toFixed(2)}× pages/s, ${(s.peakMb / l.peakMb).toFixed(2)}× peak RSS; same broken links: ${same ? 'yes' : 'NO'}`);
  console.log(`broken: ${[...s.broken].join(', ') || '(none)'}${same ? '' : ` | linkinator: ${[...l.broken].join(', ')}`}`);
  console.log(
    `floor / linkinator: ${(rate(f) / rate(l)).toFixed(2)}× pages/s, ${(f.peakMb / l.peakMb).toFixed(2)}× peak RSS ` +
      `(fetching and parsing a known list of pages, nothing stored: no crawler built on undici and htmlparser2 beats this row)`,
  );
  console.log(
    `(svc stores and indexes every page, tracks every link; all runs: svc ${svcRuns.map((r) => r.wallS.toFixed(2)).join('/')} s, ` +
      `linkinator ${lkRuns.map((r) => r.wallS.toFixed(2)).join('/')} s, floor ${floorRuns.map((r) => r.wallS.toFixed(2)).join('/')} s)`,
  );
  const mb = (runs: Run[]) => runs.map((r) => r.peakMb.toFixed(0)).join('/');
  console.log(`(peak RSS of every run: svc ${mb(svcRuns)} MB, linkinator ${mb(lkRuns)} MB, floor ${mb(floorRuns)} MB; the table gives their medians)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
