// `npm run bench:links`: `svc links` on a built folder (the Apache HTTP Server manual from Debian's apache2-doc)
// beside linkinator's folder mode and LinkChecker on the same files in the same run, alternating: the broken
// internal links each finds (as sets of paths in the folder, compared), and each whole process's wall time and
// peak RSS from `/usr/bin/time -f "%e %M"`. Only loopback and files are touched: links off the folder are skipped.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { printTable, runTimed } from './lib/measure.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SVC = join(ROOT, 'dist/src/server.js');
const LINKINATOR = join(ROOT, 'node_modules/linkinator/build/src/cli.js');
const DIR = resolve(process.env.BENCH_LINKS_DIR ?? '/usr/share/doc/apache2-doc/manual');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TIME = '/usr/bin/time';

interface Run {
  tool: string;
  wallS: number;
  /** user + sys: on a loaded machine, what the work cost where the wall time says how long a user waited. */
  cpuS: number;
  peakMb: number;
  /** Broken links inside the folder, as paths from its root (no fragment). */
  broken: Set<string>;
  exit: number | null;
}

/** A link URL as a path in the folder: `/en/mod/core.html`; null for a link outside it. */
function folderPath(url: string, origins: RegExp): string | null {
  const m = origins.exec(url);
  if (!m) return null;
  const path = url.slice(m[0].length).replace(/#.*$/, '');
  return `/${path.replace(/^\/+/, '')}`;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function runSvc(): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-links-'));
  const config = join(dir, 'svc.json');
  // A fresh data folder each run (a first check, as CI does it); links off the served folder are not checked.
  writeFileSync(
    config,
    JSON.stringify({
      data_dir: join(dir, 'data'),
      log_level: 'warn',
      targets: [{ host: 'folder.invalid', skip_link_patterns: ['^https?://(?!127\\.0\\.0\\.1[:/])'] }],
    }),
  );
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
  const r = await runTimed(SVC, ['links', DIR, '--config', config, '--format', 'json', '--limit', '5000'], env);
  rmSync(dir, { recursive: true, force: true });
  if (r.code !== 0) throw new Error(`svc links exited ${r.code}: ${r.stderr.slice(-2000)}`);
  const report = JSON.parse(r.stdout) as Record<string, { pages?: { links: { url: string }[] }[] }>;
  const broken = new Set<string>();
  for (const section of ['notFound', 'forbidden', 'serverError'])
    for (const page of report[section]?.pages ?? [])
      for (const l of page.links) {
        const p = folderPath(l.url, /^http:\/\/127\.0\.0\.1:\d+/);
        if (p) broken.add(p);
      }
  return { tool: 'svc links', wallS: r.wallS, cpuS: r.cpuS, peakMb: r.peakMb, broken, exit: r.code };
}

async function runLinkinator(): Promise<Run> {
  // CSV, not JSON: linkinator prints a line per link as it checks it, where its JSON report is one string built at
  // the end (on this folder, once, stdout held no parseable report after 14 minutes).
  const r = await runTimed(process.execPath, [
    LINKINATOR,
    DIR,
    '--recurse',
    '--skip',
    `^(?!${escapeRe(DIR)}|https?://(localhost|127\\.0\\.0\\.1)[:/])`,
    '--format',
    'csv',
  ]);
  const lines = r.stdout.split('\n');
  if (!lines[0]?.startsWith('url,status,state,parent'))
    throw new Error(`linkinator exited ${r.code} without a CSV report: ${r.stderr.slice(-2000)}`);
  const broken = new Set<string>();
  const inFolder = new RegExp(`^(?:${escapeRe(DIR)}|https?://(?:localhost|127\\.0\\.0\\.1):\\d+)`);
  // url,status,state,parent,failureDetails — a url holding a comma is quoted.
  const row = /^(?:"((?:[^"]|"")*)"|([^,]*)),[^,]*,([A-Z]+),/;
  for (const line of lines.slice(1)) {
    const m = row.exec(line);
    if (m?.[3] !== 'BROKEN') continue;
    const p = folderPath(m[1]?.replaceAll('""', '"') ?? m[2]!, inFolder);
    if (p) broken.add(p);
  }
  return { tool: 'linkinator 8.1 (folder mode)', wallS: r.wallS, cpuS: r.cpuS, peakMb: r.peakMb, broken, exit: r.code };
}

async function runLinkChecker(): Promise<Run> {
  // file:// URLs; external links are not checked unless --check-extern is given.
  const r = await runTimed('linkchecker', ['--no-status', '-o', 'csv', join(DIR, 'index.html')]);
  const broken = new Set<string>();
  const fileUrl = new RegExp(`^file://${escapeRe(DIR)}`);
  for (const line of r.stdout.split('\n')) {
    if (!line || line.startsWith('#') || line.startsWith('urlname;')) continue;
    const cols = line.split(';');
    // urlname;parentname;base;result;warningstring;infostring;valid;url;…
    if (cols[6] !== 'False') continue;
    const p = folderPath(cols[7] ?? '', fileUrl);
    if (p) broken.add(p);
  }
  return {
    tool: `LinkChecker ${linkCheckerVersion()}`,
    wallS: r.wallS,
    cpuS: r.cpuS,
    peakMb: r.peakMb,
    broken,
    exit: r.code,
  };
}

function linkCheckerVersion(): string {
  const out = spawnSync('linkchecker', ['--version'], { encoding: 'utf8' });
  return /LinkChecker (\S+)/.exec(`${out.stdout}${out.stderr}`)?.[1] ?? '';
}

function median(runs: Run[], key: 'wallS' | 'cpuS' | 'peakMb'): number {
  const s = runs.map((r) => r[key]).sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

function few(urls: Iterable<string>): string {
  const list = [...urls].sort();
  if (!list.length) return '(none)';
  return list.slice(0, 6).join(', ') + (list.length > 6 ? ` and ${list.length - 6} more` : '');
}

const RUNNERS: Record<string, () => Promise<Run>> = {
  svc: runSvc,
  linkinator: runLinkinator,
  linkchecker: runLinkChecker,
};
/** Which to run (comma-separated: svc, linkinator, linkchecker; default all); svc is always among them. */
const TOOLS = [...new Set(['svc', ...(process.env.BENCH_TOOLS ?? 'svc,linkinator,linkchecker').split(',')])].filter(
  (t) => RUNNERS[t.trim()],
);

async function main(): Promise<void> {
  if (!existsSync(join(DIR, 'index.html')))
    throw new Error(`${DIR}/index.html is missing: install Debian's apache2-doc (or set BENCH_LINKS_DIR)`);
  if (!existsSync(TIME)) throw new Error(`${TIME} is missing: install Debian's time`);
  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternating, so each tool meets the same load as the others across rounds.
    const order = TOOLS.map((t) => RUNNERS[t]!);
    for (let i = 0; i < order.length; i++) {
      const run = await order[(i + round - 1) % order.length]!();
      runs.push(run);
      process.stderr.write(
        `round ${round}: ${run.tool}: ${run.wallS.toFixed(2)} s, CPU ${run.cpuS.toFixed(1)} s, ${run.peakMb.toFixed(0)} MB, ${run.broken.size} broken\n`,
      );
    }
  }
  const tools = [...new Set(runs.map((r) => r.tool))];
  const svcRun = runs.find((r) => r.tool === 'svc links')!;
  const rows = tools.map((tool) => {
    const mine = runs.filter((r) => r.tool === tool);
    const wall = median(mine, 'wallS');
    const peak = median(mine, 'peakMb');
    const svcWall = median(
      runs.filter((r) => r.tool === 'svc links'),
      'wallS',
    );
    return [
      tool,
      mine.length,
      wall.toFixed(2),
      (wall / svcWall).toFixed(2),
      median(mine, 'cpuS').toFixed(1),
      peak.toFixed(0),
      mine[0]!.broken.size,
    ];
  });
  console.log(
    `\n${DIR}: ${ROUNDS} rounds, alternating; medians of wall time, CPU (user + sys) and peak RSS (/usr/bin/time)\n`,
  );
  printTable(['tool', 'runs', 'wall s', '× svc', 'CPU s', 'peak RSS MB', 'broken links (distinct paths)'], rows);
  console.log('\nBroken internal links compared with svc links (first run of each):\n');
  for (const tool of tools) {
    if (tool === 'svc links') continue;
    const theirs = runs.find((r) => r.tool === tool)!.broken;
    const both = [...svcRun.broken].filter((p) => theirs.has(p));
    const onlySvc = [...svcRun.broken].filter((p) => !theirs.has(p));
    const onlyThem = [...theirs].filter((p) => !svcRun.broken.has(p));
    console.log(`- ${tool}: ${both.length} in both; only svc: ${few(onlySvc)}; only ${tool}: ${few(onlyThem)}`);
  }
  console.log(`\nsvc's broken paths: ${few(svcRun.broken)}`);
}

await main();
