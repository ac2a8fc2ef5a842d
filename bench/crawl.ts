// npm run bench:crawl [-- --runs N] — crawls two real manuals served by nginx on loopback (PostgreSQL 15's, 1,169
// pages, and libstdc++ 12's, 3,906 pages; BENCH_SITES=pg or =libstdcxx for one) with, alternately, N times each
// (--runs or BENCH_ROUNDS, default 5): `svc crawl full` into a fresh data directory (the first crawl, to its exit),
// then the first `svc search` process (first crawl + first search: when a user can search), `svc crawl full` again (a
// repeat crawl of the unchanged site, which asks with the stored validators), the same repeat through a warm `svc
// serve` (POST /v1 …/crawls to completed, after one unmeasured crawl), linkinator 8 twice (Node 24, the dev
// dependency), linkinator 6.3 once (Node 20, from a scratch folder: BENCH_LINKINATOR6 and BENCH_NODE20; left out when
// absent) and the floor, every peer with svc's limits (concurrency 16, links off the site skipped). Each process is
// timed whole under `/usr/bin/time` (wall time as a user waits for it, the kernel's peak RSS and CPU time: never
// polled); the record's report/index times stand beside the first crawl's. It prints a table per manual with the
// median run of each (peak RSS: the median over all runs), and the requests and bytes the access log credits to the
// run (nginx's $bytes_sent: headers and body), and checks that every tool found the same broken links (exit 1
// otherwise).
// The floor row is what the libraries every such crawl is built on cost alone (lib/crawl-floor.ts): undici fetching
// the HTML pages svc found, htmlparser2 parsing them on a second thread, nothing else.
// Only loopback is ever contacted: links off the site are excluded (svc: skip_link_patterns, linkinator: --skip).
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { peakRssMb, printTable, runTimed, type TimedRun } from './lib/measure.js';
import {
  BENCH_TOKEN,
  docsSiteLog,
  escapeRe,
  ROOT,
  serve,
  startDocsSite,
  SVC,
  svc,
  svcEnv,
  writeDocsConfig,
} from './lib/services.js';

/** `--runs N` (or BENCH_ROUNDS): alternating rounds per manual; each row is the median of its runs. */
function runsArg(): number {
  const i = process.argv.indexOf('--runs');
  const v = i >= 0 ? process.argv[i + 1] : process.env.BENCH_ROUNDS;
  const n = Number(v ?? 5);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--runs: give a whole number of rounds ≥ 1 (got ${v})`);
  return n;
}
const ROUNDS = runsArg();
/** What the first `svc search` process after the first crawl asks (a word on nearly every page of both manuals). */
const SEARCH_TERMS = process.env.BENCH_SEARCH ?? 'function';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LINKINATOR = join(ROOT, 'node_modules/linkinator/build/src/cli.js');
const FLOOR = join(ROOT, 'dist/bench/lib/crawl-floor.js');
const FLOOR_AGENT = 'svc-bench-floor';
const LINKINATOR6 =
  process.env.BENCH_LINKINATOR6 ?? join(tmpdir(), 'svc-bench-linkinator6/node_modules/linkinator/build/src/cli.js');
const NODE20 = process.env.BENCH_NODE20 ?? '/usr/bin/node';
const LK6_AGENT = 'Chrome/79.0.3945.117 Safari/537.36';

interface Site {
  key: string;
  name: string;
  root: string;
  port: number;
  /** nginx's directory for this manual (pid, log). */
  dir: string;
}

const BASE_PORT = Number(process.env.BENCH_DOCS_PORT ?? 18099);
const BASE_DIR = process.env.SVC_DOCS_SITE_DIR ?? '/tmp/svc-docs-site';
const SITES: Site[] = [
  {
    key: 'pg',
    name: 'PostgreSQL 15 manual',
    root: '/usr/share/doc/postgresql-doc-15/html',
    port: BASE_PORT,
    dir: BASE_DIR,
  },
  {
    key: 'libstdcxx',
    name: 'libstdc++ 12 manual',
    root: '/usr/share/doc/libstdc++-12-doc/libstdc++',
    port: BASE_PORT + 1,
    dir: `${BASE_DIR}-libstdcxx`,
  },
].filter((s) => (process.env.BENCH_SITES ?? 'pg,libstdcxx').split(',').includes(s.key));

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
  /** svc: seconds from the start to the crawl record's reportReadyAt and indexedAt. */
  reportS?: number;
  indexS?: number;
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

/**
 * Runs a command to its end under `/usr/bin/time` (lib/measure.ts): the whole process's wall time, CPU time and the
 * kernel's peak RSS. `svc` is started as its bin, the way a user's shell starts it (its first line picks the
 * process's V8 settings); anything else with `node`.
 */
function measure(args: string[], node = process.execPath): Promise<TimedRun> {
  return args[0] === SVC ? runTimed(SVC, args.slice(1), svcEnv()) : runTimed(node, args);
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

type Measured = Pick<Awaited<ReturnType<typeof measure>>, 'wallS' | 'cpuS' | 'peakMb'>;

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
  const rec = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as CrawlRec;
  return {
    ...svcRow(tool, r, countRequests(logPath, d.agent), d, rec),
    reportS: (Date.parse(rec.reportReadyAt) - r.startMs) / 1000,
    indexS: (Date.parse(rec.indexedAt) - r.startMs) / 1000,
  };
}

/**
 * The first `svc search` process after the first crawl (a user's next command): the crawl is searchable to a user
 * when this answers, so the row "first crawl + first search" adds its wall time to the crawl's. Peak: the larger.
 */
async function runFirstSearch(first: Run, d: { config: string }): Promise<Run> {
  const r = await measure([SVC, 'search', SEARCH_TERMS, '--config', d.config]);
  if (r.code !== 0) throw new Error(`svc search exited ${r.code}:\n${r.stderr}`);
  if (!r.stdout.trim()) throw new Error(`svc search ${SEARCH_TERMS} printed nothing`);
  return {
    ...first,
    tool: 'svc, first crawl + the first `svc search` process',
    wallS: first.wallS + r.wallS,
    cpuS: first.cpuS + r.cpuS,
    peakMb: Math.max(first.peakMb, r.peakMb),
    reportS: undefined,
    indexS: undefined,
  };
}

interface CrawlRec {
  status: string;
  reportReadyAt: string;
  indexedAt: string;
  stats: { pages: number; notModified?: number; unchanged?: number };
}

/** A row of svc's, with the broken links and pages its store holds after the crawl. */
function svcRow(
  tool: string,
  r: Measured,
  counted: Counted,
  d: { dir: string },
  rec: CrawlRec,
): Run & { pageUrls: string[] } {
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
      counted,
      broken,
      rows.reduce((n, x) => n + x.n, 0),
      rec.stats.pages,
    ),
    pageUrls,
    kept,
  };
}

/**
 * A repeat crawl through a warm `svc serve` on the directory: one unmeasured crawl (the crawler's modules load, the
 * caches fill), then POST /v1 …/crawls to its record `completed`; CPU and peak RSS are the server's.
 */
async function runServeRepeat(logPath: string, d: { dir: string; config: string; agent: string }): Promise<Run> {
  const key = svc(['keys', 'create', '--config', d.config]).trim();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  // Its listening line is logged at info.
  const s = await serve(['--config', d.config, '--port', '0'], { SVC_LOG_LEVEL: 'info' });
  const api = `${s.baseUrl}/v1/projects/${encodeURIComponent(BENCH_TOKEN)}/crawls`;
  const crawl = async (): Promise<CrawlRec> => {
    const res = await fetch(api, { method: 'POST', headers, body: JSON.stringify({ mode: 'full' }) });
    if (res.status !== 202) throw new Error(`crawl start answered ${res.status}: ${await res.text()}`);
    const { id } = (await res.json()) as { id: number };
    for (;;) {
      const rec = (await (await fetch(`${api}/${id}`, { headers })).json()) as CrawlRec;
      if (rec.status !== 'queued' && rec.status !== 'running') return rec;
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  try {
    await crawl();
    const pid = s.proc.pid!;
    truncateSync(logPath, 0);
    const cpu0 = cpuSeconds(pid);
    const t0 = process.hrtime.bigint();
    const rec = await crawl();
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    // The kernel's high-water mark of the server (VmHWM), read once: its peak since it started, the warm-up included.
    const r = { wallS, cpuS: cpuSeconds(pid) - cpu0, peakMb: peakRssMb(pid) };
    if (rec.status !== 'completed') throw new Error(`the repeat crawl through svc serve ended ${rec.status}`);
    return svcRow('svc, repeat crawl, warm svc serve', r, countRequests(logPath, d.agent), d, rec);
  } finally {
    await s.stop();
  }
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

async function runLinkinator(
  site: URL,
  logPath: string,
  tool: string,
  script = LINKINATOR,
  node = process.execPath,
  /** How the access log names its requests: linkinator 6.3's CLI ignores --user-agent and sends its default. */
  logAgent?: string,
): Promise<Run> {
  // An agent of its own, so the site's log tells its requests from everyone else's.
  const agent = 'svc-bench-linkinator';
  truncateSync(logPath, 0);
  const r = await measure(
    [
      script,
      site.href,
      '--recurse',
      // svc's limit. Before, this flag was missing, so linkinator ran 100 requests at once (its default; 6.3's CLI
      // also ignores --user-agent, and the scope was the same: 1,173 requests either way): the one difference in
      // flags from the hand run with --concurrency 16 (1.65 s there, 2.55 s here). Side by side (bench/results/
      // 2026-11-27-crawl.md) the default cost linkinator 6.3 ~7% more CPU and ~21 MiB more peak RSS, in about the
      // same wall time on a loaded machine: the rest of that gap is the load the two runs met, not the tool.
      '--concurrency',
      String(CONCURRENCY),
      '--skip',
      `^(?!${escapeRe(site.origin)}/)`,
      '--user-agent',
      agent,
      '--format',
      'json',
    ],
    node,
  );
  // linkinator exits 1 when it found broken links; its JSON report is what counts.
  let report: { links: { url: string; state: string }[] };
  try {
    report = JSON.parse(r.stdout) as typeof report;
  } catch {
    throw new Error(
      `${tool} exited ${r.code} after ${r.wallS} s without a JSON report (${r.stdout.length} characters on stdout, ` +
        `starting ${JSON.stringify(r.stdout.slice(0, 200))}):\n${r.stderr.slice(-2000)}`,
    );
  }
  const broken = new Set(report.links.filter((l) => l.state === 'BROKEN').map((l) => l.url));
  return runOf(tool, r, countRequests(logPath, logAgent ?? agent), broken, null);
}

/** The median run by wall time, with the median peak RSS of all runs (a process's peak varies run to run with when V8 collects). */
function median(runs: Run[]): Run {
  const s = [...runs].sort((a, b) => a.wallS - b.wallS);
  const peaks = runs.map((r) => r.peakMb).sort((a, b) => a - b);
  return { ...s[Math.floor((s.length - 1) / 2)]!, peakMb: peaks[Math.floor((peaks.length - 1) / 2)]! };
}

/** The first few URLs of a set, and how many more. */
function few(urls: Set<string>): string {
  const list = [...urls];
  if (!list.length) return '(none)';
  return list.slice(0, 5).join(', ') + (list.length > 5 ? ` and ${list.length - 5} more` : '');
}

/**
 * A peer's run once more when it failed; null when it failed again (said, and the round goes on without it: a crash
 * of the peer does not lose the rounds before it nor the other tools' runs).
 */
async function again(run: () => Promise<Run>): Promise<Run | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
      console.error(`  (a run failed${attempt === 1 ? ', run again' : ' twice: this round has no such run'}: ${why})`);
      if (attempt === 2) return null;
    }
  }
}

type RowKey = 'first' | 'searchable' | 'repeat' | 'serve' | 'lk1' | 'lk2' | 'lk6' | 'floor' | 'start';
const START_ROW = "svc, a CLI crawl's fixed cost (crawl manual of one missing page)";

/** The rounds on one manual, its table, and whether every tool found the same broken links. */
async function benchSite(spec: Site): Promise<boolean> {
  const env = { SVC_DOCS_SITE_ROOT: spec.root, SVC_DOCS_SITE_DIR: spec.dir };
  const site = new URL(startDocsSite(spec.port, env));
  const logPath = docsSiteLog(env);
  const lk6 = existsSync(LINKINATOR6) && existsSync(NODE20);
  console.error(
    `bench:crawl — ${spec.name} at ${site.href}, ${ROUNDS} round(s) per tool, svc concurrency ${CONCURRENCY}, ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}`,
  );
  const loadStart = loadavg()[0]!;
  const rows: Record<RowKey, Run[]> = {
    first: [],
    searchable: [],
    repeat: [],
    serve: [],
    lk1: [],
    lk2: [],
    lk6: [],
    floor: [],
    start: [],
  };
  const say = (round: number, r: Run) =>
    console.error(
      `  round ${round} ${r.tool}: ${r.wallS.toFixed(2)} s (CPU ${r.cpuS.toFixed(2)} s${r.reportS !== undefined ? `, report ${r.reportS.toFixed(2)} s, index ${r.indexS!.toFixed(2)} s` : ''}), ${r.pages} pages, ${r.requests} requests, ${(r.bytes / 1e6).toFixed(2)} MB, ${r.peakMb.toFixed(0)} MB RSS`,
    );
  for (let round = 1; round <= ROUNDS; round++) {
    const d = svcDir(site, round);
    const add = <R extends Run>(row: RowKey, r: R): R => {
      rows[row].push(r);
      say(round, r);
      return r;
    };
    try {
      // Alternating: each svc run has a linkinator run beside it under the same load.
      const a = add('first', await runSvc('svc, first crawl (`svc crawl full`, to exit)', logPath, d));
      add('searchable', await runFirstSearch(a, d));
      const lk1 = await again(() => runLinkinator(site, logPath, 'linkinator 8.1 (Node 24), run 1'));
      if (lk1) add('lk1', lk1);
      add('repeat', await runSvc('svc, repeat crawl, CLI', logPath, d));
      if (lk6)
        add('lk6', await runLinkinator(site, logPath, 'linkinator 6.3 (Node 20)', LINKINATOR6, NODE20, LK6_AGENT));
      add('serve', await runServeRepeat(logPath, d));
      const lk2 = await again(() => runLinkinator(site, logPath, 'linkinator 8.1 (Node 24), run 2'));
      if (lk2) add('lk2', lk2);
      add('floor', await runFloor(logPath, a.pageUrls));
      // What a CLI crawl pays besides its pages: node and its modules, the app opened on the store this round
      // filled, the crawler loaded, one request (an address the site does not have: no links to check) and the
      // crawl's end written.
      truncateSync(logPath, 0);
      const g = await measure([
        SVC,
        'crawl',
        'manual',
        new URL('/svc-bench-no-such-page', site).href,
        '--config',
        d.config,
      ]);
      if (g.code !== 0) throw new Error(`svc crawl manual exited ${g.code}:\n${g.stderr}`);
      rows.start.push(runOf(START_ROW, g, countRequests(logPath, d.agent), new Set(), null));
    } finally {
      rmSync(d.dir, { recursive: true, force: true });
    }
  }
  const m = Object.fromEntries(
    Object.entries(rows).map(([k, runs]) => [k, runs.length ? median(runs) : null]),
  ) as Record<RowKey, Run | null>;
  const first = m.first!;
  const repeat = m.repeat!;
  const served = m.serve!;
  // linkinator 8 keeps nothing between runs: both runs measure the same work.
  if (!rows.lk1.length && !rows.lk2.length) throw new Error(`linkinator 8.1 failed in every round on ${spec.name}`);
  const lk8 = median([...rows.lk1, ...rows.lk2]);
  lk8.tool = 'linkinator 8.1 (Node 24)';
  const lk6Row = m.lk6;
  // The targets compare with the faster linkinator on this manual.
  const fastest = lk6Row && lk6Row.wallS < lk8.wallS ? lk6Row : lk8;
  const rate = (r: Run) => r.pages / r.wallS;
  console.log(
    `\nbench:crawl — ${spec.name} on ${site.host}, full crawls, same host only; median of ${ROUNDS} alternating run(s) each; ` +
      `${availableParallelism()} cores, load average ${loadStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end\n`,
  );
  const searchable = m.searchable!;
  const table = [first, searchable, repeat, served, lk8, ...(lk6Row ? [lk6Row] : []), m.floor!, m.start!];
  const na = (r: Run) => r === m.floor || r === m.start;
  printTable(
    [
      'tool',
      'wall s',
      'report s',
      'index s',
      'CPU s',
      'pages',
      'pages/s',
      'peak RSS MiB',
      'requests',
      'MB sent',
      'broken URLs',
      'broken (page, link)',
    ],
    table.map((r) => [
      r.tool,
      r.wallS,
      r.reportS ?? '',
      r.indexS ?? '',
      r.cpuS,
      r.pages,
      rate(r),
      r.peakMb,
      r.requests,
      r.bytes / 1e6,
      na(r) ? 'n/a' : r.broken.size,
      na(r) ? 'n/a' : (r.brokenPairs ?? 'n/a (one per URL)'),
    ]),
  );
  if (!lk6Row) console.log(`(linkinator 6.3 not run: ${LINKINATOR6} or ${NODE20} is missing)`);
  const check = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const vs = (label: string, svcS: number, target: number) => {
    const x = fastest.wallS / svcS;
    return `${label} ${x.toFixed(2)}× (target ≥ ${target}: ${check(x >= target)})`;
  };
  console.log(
    `\nagainst the faster linkinator here (${fastest.tool}, ${fastest.wallS.toFixed(2)} s): ` +
      [
        vs('first crawl (process wall)', first.wallS, 1.2),
        vs('first crawl + first search', searchable.wallS, 0.9),
        vs('repeat from the CLI', repeat.wallS, 2),
        vs('repeat through a warm svc serve', served.wallS, 4),
      ].join('; '),
  );
  if (lk6Row) {
    const x = first.peakMb / lk6Row.peakMb;
    console.log(`first crawl peak RSS / linkinator 6.3's: ${x.toFixed(2)}× (target ≤ 1.25: ${check(x <= 1.25)})`);
  }
  const f = first.wallS / m.floor!.wallS;
  console.log(`first crawl wall / the floor's: ${f.toFixed(2)}× (target ≤ 1.6: ${check(f <= 1.6)})`);
  // On a loaded machine a process waits for a core as long as it runs: its CPU time moves far less than its wall.
  const cpu = (a: Run, b: Run | null) => (b ? `${(a.cpuS / b.cpuS).toFixed(2)}×` : 'n/a');
  console.log(
    `CPU time (less sensitive to the machine's load): svc first crawl ${cpu(first, lk6Row)} linkinator 6.3's, ` +
      `${cpu(first, lk8)} linkinator 8.1's, ${cpu(first, m.floor)} the floor's; CLI repeat ${cpu(repeat, lk6Row)} linkinator 6.3's`,
  );
  const start = m.start!;
  console.log(
    `(a CLI crawl's fixed cost — start, store, crawler, one request, the end — is ${start.wallS.toFixed(2)} s (CPU ${start.cpuS.toFixed(2)} s) of the CLI repeat crawl's ${repeat.wallS.toFixed(2)} s; ` +
      `${repeat.kept ?? 0} of ${repeat.pages} pages kept as stored; the repeat sent ${((100 * repeat.bytes) / lk8.bytes).toFixed(1)}% of linkinator's bytes)`,
  );
  const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((u) => b.has(u));
  const peers = [repeat, served, ...rows.lk1, ...rows.lk2, ...rows.lk6, ...rows.first, ...rows.repeat, ...rows.serve];
  const differ = peers.filter((r) => !same(r.broken, first.broken));
  console.log(
    `same broken links found by every run: ${differ.length ? `NO (${differ.map((r) => `${r.tool}: ${r.broken.size} URLs`).join('; ')})` : 'yes'}; broken: ${few(first.broken)}`,
  );
  console.log(
    `floor / linkinator 8: ${(rate(m.floor!) / rate(lk8)).toFixed(2)}× pages/s, ${(m.floor!.peakMb / lk8.peakMb).toFixed(2)}× peak RSS ` +
      `(fetching and parsing a known list of pages, nothing stored: no crawler built on undici and htmlparser2 beats this row on a first crawl)`,
  );
  const all = (runs: Run[], f: (r: Run) => string) => runs.map(f).join('/');
  const wall = (r: Run) => r.wallS.toFixed(2);
  const mb = (r: Run) => r.peakMb.toFixed(0);
  console.log(
    `(all runs, wall s: svc first ${all(rows.first, wall)}, first + search ${all(rows.searchable, wall)}, CLI repeat ${all(rows.repeat, wall)}, serve repeat ${all(rows.serve, wall)}, linkinator 8 ${all(rows.lk1, wall)} and ${all(rows.lk2, wall)}, linkinator 6 ${all(rows.lk6, wall)}, floor ${all(rows.floor, wall)})`,
  );
  console.log(
    `(peak RSS MiB: svc first ${all(rows.first, mb)}, CLI repeat ${all(rows.repeat, mb)}, serve ${all(rows.serve, mb)}, linkinator 8 ${all(rows.lk1, mb)} and ${all(rows.lk2, mb)}, linkinator 6 ${all(rows.lk6, mb)}; the table gives their medians)`,
  );
  return differ.length === 0;
}

async function main(): Promise<void> {
  let ok = true;
  for (const site of SITES) ok = (await benchSite(site)) && ok;
  if (!ok) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
