// npm run bench:crash — kill -9 `svc serve` during a full crawl at random moments, 20 times. After each kill:
// the database passes PRAGMA integrity_check, the restart marks the dead crawl failed, the last complete
// report and the index are intact; at the end a full crawl completes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { printTable } from './lib/measure.js';
import { BENCH_TOKEN, serve, type Served, startDocsSite, svc, writeDocsConfig } from './lib/services.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const TOKEN = BENCH_TOKEN;

interface Snapshot {
  counts: Record<string, number>;
  searchTotal: number;
}

async function main(): Promise<void> {
  const site = new URL(startDocsSite());
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-crash-'));
  const dataDir = join(dir, 'data');
  const config = join(dir, 'svc.json');
  writeDocsConfig(config, site, dataDir, { start_paths: ['/index.html'], concurrency: 8 });

  const key = svc(['keys', 'create', '--config', config]).trim();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const api = (s: Served) => `${s.baseUrl}/v1/projects/${encodeURIComponent(TOKEN)}`;
  const startFull = async (s: Served) => {
    const res = await fetch(`${api(s)}/crawls`, { method: 'POST', headers, body: JSON.stringify({ mode: 'full' }) });
    if (res.status !== 202) throw new Error(`crawl start answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { id: number }).id;
  };
  const crawl = async (s: Served, id: number) => (await (await fetch(`${api(s)}/crawls/${id}`, { headers })).json()) as { status: string };
  const waitEnd = async (s: Served, id: number) => {
    for (;;) {
      const rec = await crawl(s, id);
      if (rec.status !== 'queued' && rec.status !== 'running') return rec.status;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const snapshot = async (s: Served): Promise<Snapshot> => {
    const report = (await (await fetch(`${api(s)}/link-report?limit=1`, { headers })).json()) as Record<string, { count: number }>;
    const counts = Object.fromEntries(['notFound', 'forbidden', 'serverError', 'redirect', 'unknown'].map((k) => [k, report[k]!.count]));
    const search = (await (await fetch(`${api(s)}/search`, { method: 'POST', headers, body: JSON.stringify({ terms: 'table' }) })).json()) as { total: number };
    return { counts, searchTotal: search.total };
  };

  let s = await serve(['--config', config, '--port', '0']);
  const firstStart = Date.now();
  const first = await startFull(s);
  const firstStatus = await waitEnd(s, first);
  // Kills land inside a crawl: at a random moment of the first 85% of a full crawl's usual length.
  const crawlMs = Date.now() - firstStart;
  if (firstStatus !== 'completed') throw new Error(`baseline crawl ended ${firstStatus}`);
  const baseline = await snapshot(s);
  await s.stop();
  console.error(`baseline: ${JSON.stringify(baseline)}`);

  const rows: (string | number)[][] = [];
  let failures = 0;
  let late = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    s = await serve(['--config', config, '--port', '0']);
    const id = await startFull(s);
    const delay = 100 + Math.floor(Math.random() * Math.max(1, crawlMs * 0.85 - 100));
    await new Promise((r) => setTimeout(r, delay));
    await s.stop('SIGKILL');
    const db = new Database(join(dataDir, 'svc.db'));
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    db.close();
    s = await serve(['--config', config, '--port', '0']);
    const status = (await crawl(s, id)).status;
    const now = await snapshot(s);
    await s.stop();
    if (status === 'completed' && late < ROUNDS) {
      // This crawl was quicker than the kill: it tests nothing; run the round again.
      late++;
      round--;
      continue;
    }
    const intact = JSON.stringify(now) === JSON.stringify(baseline);
    const ok = integrity === 'ok' && status === 'failed' && intact;
    if (!ok) failures++;
    rows.push([round, delay, integrity, status, intact ? 'yes' : `no ${JSON.stringify(now)}`, ok ? 'ok' : 'FAIL']);
  }
  s = await serve(['--config', config, '--port', '0']);
  const last = await startFull(s);
  const lastStatus = await waitEnd(s, last);
  const after = await snapshot(s);
  await s.stop();

  console.log(`\nbench:crash — ${ROUNDS} kill -9 rounds during a full crawl (a full crawl takes ${crawlMs} ms here; ${late} kill(s) came after the crawl had ended and were repeated)\n`);
  printTable(['round', 'killed after ms', 'integrity_check', 'dead crawl on restart', 'report+index intact', 'result'], rows);
  console.log(`\nfinal full crawl: ${lastStatus}; report+index equal to baseline: ${JSON.stringify(after) === JSON.stringify(baseline)}`);
  console.log(`${ROUNDS - failures} passed, ${failures} failed`);
  if (failures || lastStatus !== 'completed') process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
