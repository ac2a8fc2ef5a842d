// npm run bench:crawl — crawls the PostgreSQL manual (nginx on 127.0.0.1:18099) with `svc crawl full` twice into one
// data directory (the first crawl, then a repeat full crawl of the unchanged site, which asks with the stored
// validators) and with linkinator 8 twice (--recurse, same host only: it keeps no state, so its second run costs what
// its first did), alternately, BENCH_ROUNDS (default 5) times each, and prints one table with the median run of each:
// wall time, CPU time, pages/s, peak RSS (the median over all runs), and the requests and bytes the access log
// credits to the run (nginx's $bytes_sent: headers and body).
// A last row is the floor of the libraries every such crawl is built on (lib/crawl-floor.ts): undici fetching the
// HTML pages svc found, htmlparser2 parsing them on a second thread, nothing else.
// Only loopback is ever contacted: links off the site are excluded (svc: skip_link_patterns, linkinator: --skip).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { printTable, watchPeakRss } from './lib/measure.js';
import { docsSiteLog, escapeRe, ROOT, startDocsSite, SVC, writeDocsConfig } from './lib/services.js';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
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
  bytes: number;
  broken: Set<string>;
  brokenPairs: number | null;
  /** svc: stored pages the crawl kept (304, or the same body). */
  kept?: number;
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
function measure(
  args: string[],
): Promise<{ stdout: string; stderr: string; code: number | null; wallS: number; peakMb: number; cpuS: number }> {
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

interface Counted {
  requests: number;
  /** HTML pages fetched with a 200. */
  pages: number;
  /** Bytes sent (headers and bodies): the last field of a line (see serve-docs-site.sh). */
  bytes: number;
}

/** Requests in the access log sent with this user agent, how many of them fetched an HTML page, and the bytes sent for them. */
function countRequests(logPath: string, agent: string): Counted {
  let requests = 0;
  let pages = 0;
  let bytes = 0;
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line.includes(agent)) continue;
    requests++;
    bytes += Number(/ (\d+)$/.exec(line)?.[1] ?? 0);
    const m = /"GET ([^ "]+) HTTP\/[\d.]+" 200 /.exec(line);
    if (m && /(\/|\.html?)(\?.*)?$/.test(m[1]!)) pages++;
  }
  return { requests, pages, bytes };
}

type Measured = Awaited<ReturnType<typeof measure>>;

/** A row of the table: the measured process and the requests the access log credits to it (`pages`: when the log cannot tell). */
function runOf(
  tool: string,
  r: Measured,
  counted: Counted,
  broken: Set<string>,
  brokenPairs: number | null,
  pages = counted.pages,
): Run {
  return {
    tool,
    wallS: r.wallS,
    cpuS: r.cpuS,
    pages,
    peakMb: r.peakMb,
    requests: counted.requests,
    bytes: counted.bytes,
    broken,
    brokenPairs,
  };
}

/** One svc data directory: its first crawl, then repeat crawls of the unchanged site. */
function svcDir(site: URL, round: number): { dir: string; config: string; agent: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-crawl-'));
  const agent = `svc-bench-${process.pid}-${round}`;
  const config = join(dir, 'svc.json');
  writeDocsConfig(
    config,
    site,
    join(dir, 'data'),
    {
      start_paths: ['/'],
      max_pages: 100_000,
      concurrency: CONCURRENCY,
      request_headers: { 'user-agent': agent },
    },
    'warn',
  );
  return { dir, config, agent };
}

/** `svc crawl full` into the directory; pages are the crawl's own count (a repeat crawl's 304s fetch no page body). */
async function runSvc(
  tool: string,
  logPath: string,
  d: { dir: string; config: string; agent: string },
): Promise<Run & { pageUrls: string[] }> {
  truncateSync(logPath, 0);
  const r = await measure([SVC, 'crawl', 'full', '--config', d.config]);
  if (r.code !== 0) throw new Error(`svc crawl exited ${r.code}:\n${r.stderr}`);
  const rec = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
    stats: { pages: number; notModified?: number; unchanged?: number };
  };
  const db = new Database(join(d.dir, 'data', 'svc.db'), { readonly: true });
  const rows = db
    .prepare(
      `SELECT o.url AS url, count(*) AS n FROM links l JOIN link_outcomes o ON o.url = l.url WHERE o.reason IN ('not_found','forbidden','server_error') GROUP BY o.url`,
    )
    .all() as { url: string; n: number }[];
  const pageUrls = db.prepare(`SELECT url FROM pages WHERE content_type LIKE 'text/html%'`).pluck().all() as string[];
  db.close();
  const broken = new Set(rows.map((x) => x.url));
  const kept = (rec.stats.notModified ?? 0) + (rec.stats.unchanged ?? 0);
  return {
    ...runOf(
      tool,
      r,
      countRequests(logPath, d.agent),
      broken,
      rows.reduce((n, x) => n + x.n, 0),
      rec.stats.pages,
    ),
    pageUrls,
    kept,
  };
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

async function runLinkinator(site: URL, logPath: string, tool: string): Promise<Run> {
  // An agent of its own, so the site's log tells its requests from everyone else's.
  const agent = 'svc-bench-linkinator';
  truncateSync(logPath, 0);
  const r = await measure([
    LINKINATOR,
    site.href,
    '--recurse',
    '--skip',
    `^(?!${escapeRe(site.origin)}/)`,
    '--user-agent',
    agent,
    '--format',
    'json',
  ]);
  // linkinator exits 1 when it found broken links; its JSON report is what counts.
  const report = JSON.parse(r.stdout) as { links: { url: string; state: string }[] };
  const broken = new Set(report.links.filter((l) => l.state === 'BROKEN').map((l) => l.url));
  return runOf(tool, r, countRequests(logPath, agent), broken, null);
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
  console.error(
    `bench:crawl — ${site.href}, ${ROUNDS} round(s) per tool, svc concurrency ${CONCURRENCY}, ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}`,
  );
  const loadStart = loadavg()[0]!;
  const rows: Record<'first' | 'repeat' | 'lk1' | 'lk2' | 'floor' | 'start', Run[]> = {
    first: [],
    repeat: [],
    lk1: [],
    lk2: [],
    floor: [],
    start: [],
  };
  const say = (round: number, r: Run) =>
    console.error(
      `  round ${round} ${r.tool}: ${r.wallS.toFixed(2)} s (CPU ${r.cpuS.toFixed(2)} s), ${r.pages} pages, ${r.requests} requests, ${(r.bytes / 1e6).toFixed(2)} MB, ${r.peakMb.toFixed(0)} MB RSS`,
    );
  for (let round = 1; round <= ROUNDS; round++) {
    const d = svcDir(site, round);
    const add = <R extends Run>(row: keyof typeof rows, r: R): R => {
      rows[row].push(r);
      say(round, r);
      return r;
    };
    try {
      // Alternating: each svc run has a linkinator run beside it under the same load.
      const a = add('first', await runSvc('svc, first crawl', logPath, d));
      add('lk1', await runLinkinator(site, logPath, 'linkinator 8, run 1'));
      add('repeat', await runSvc('svc, repeat full crawl', logPath, d));
      add('lk2', await runLinkinator(site, logPath, 'linkinator 8, run 2'));
      add('floor', await runFloor(logPath, a.pageUrls));
      // What every svc run pays before it crawls: node and the CLI's modules (not the crawler's, loaded at crawl start).
      const g = await measure([SVC, 'crawl', '--help']);
      rows.start.push(
        runOf('svc process start alone (svc crawl --help)', g, { requests: 0, pages: 0, bytes: 0 }, new Set(), null),
      );
    } finally {
      rmSync(d.dir, { recursive: true, force: true });
    }
  }
  const first = median(rows.first);
  const repeat = median(rows.repeat);
  const lk1 = median(rows.lk1);
  const lk2 = median(rows.lk2);
  const floor = median(rows.floor);
  const start = median(rows.start);
  // linkinator keeps nothing between runs: both runs measure the same work, and the targets compare with all of them.
  const lk = median([...rows.lk1, ...rows.lk2]);
  const rate = (r: Run) => r.pages / r.wallS;
  console.log(
    `\nbench:crawl — PostgreSQL 15 manual on ${site.host}, full crawls, same host only; median of ${ROUNDS} alternating run(s) each; ` +
      `${availableParallelism()} cores, load average ${loadStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end\n`,
  );
  const table = [first, repeat, lk1, lk2, floor, start];
  printTable(
    [
      'tool',
      'wall s',
      'CPU s',
      'pages',
      'pages/s',
      'peak RSS MB',
      'requests',
      'MB sent',
      'broken URLs',
      'broken (page, link)',
    ],
    table.map((r) => [
      r.tool,
      r.wallS,
      r.cpuS,
      r.pages,
      rate(r),
      r.peakMb,
      r.requests,
      r.bytes / 1e6,
      r === floor || r === start ? 'n/a' : r.broken.size,
      r === floor || r === start ? 'n/a' : (r.brokenPairs ?? 'n/a (one per URL)'),
    ]),
  );
  const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((u) => b.has(u));
  const check = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const repeatRate = rate(repeat) / rate(lk);
  const repeatBytes = repeat.bytes / lk.bytes;
  const firstRate = rate(first) / rate(lk);
  const firstRss = first.peakMb / lk.peakMb;
  console.log(
    `\nrepeat full crawl / linkinator: ${repeatRate.toFixed(2)}× pages/s (target ≥ 5: ${check(repeatRate >= 5)}), ${(100 * repeatBytes).toFixed(1)}% of its bytes (target < 10%: ${check(repeatBytes < 0.1)}); ${repeat.kept ?? 0} of ${repeat.pages} pages kept as stored`,
  );
  const beyondStart = repeat.wallS - start.wallS;
  console.log(
    `  (svc's process start alone takes ${start.wallS.toFixed(2)} s of the repeat crawl's ${repeat.wallS.toFixed(2)} s; 5× linkinator would leave ` +
      `${(lk.wallS / 5 - start.wallS).toFixed(2)} s for the crawl itself, which takes ${beyondStart.toFixed(2)} s: ${(repeat.pages / beyondStart / rate(lk)).toFixed(2)}× linkinator's pages/s without the start)`,
  );
  console.log(
    `first crawl / linkinator: ${firstRate.toFixed(2)}× pages/s (target ≥ 1.3: ${check(firstRate >= 1.3)}), ${firstRss.toFixed(2)}× peak RSS (target ≤ 1.1: ${check(firstRss <= 1.1)})`,
  );
  console.log(
    `same broken links: first vs linkinator ${same(first.broken, lk1.broken) ? 'yes' : 'NO'}, repeat vs first ${same(repeat.broken, first.broken) ? 'yes' : 'NO'}; broken: ${[...first.broken].join(', ') || '(none)'}`,
  );
  console.log(
    `floor / linkinator: ${(rate(floor) / rate(lk)).toFixed(2)}× pages/s, ${(floor.peakMb / lk.peakMb).toFixed(2)}× peak RSS ` +
      `(fetching and parsing a known list of pages, nothing stored: no crawler built on undici and htmlparser2 beats this row on a first crawl)`,
  );
  const all = (runs: Run[], f: (r: Run) => string) => runs.map(f).join('/');
  const wall = (r: Run) => r.wallS.toFixed(2);
  const mb = (r: Run) => r.peakMb.toFixed(0);
  console.log(
    `(all runs, wall s: svc first ${all(rows.first, wall)}, svc repeat ${all(rows.repeat, wall)}, linkinator ${all(rows.lk1, wall)} and ${all(rows.lk2, wall)}, floor ${all(rows.floor, wall)})`,
  );
  console.log(
    `(peak RSS MB: svc first ${all(rows.first, mb)}, svc repeat ${all(rows.repeat, mb)}, linkinator ${all(rows.lk1, mb)} and ${all(rows.lk2, mb)}, floor ${all(rows.floor, mb)}; the table gives their medians)`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
