// npm run bench:crash — kill -9 `svc serve` during a full crawl at random moments, 20 times. After each kill:
// the database passes PRAGMA integrity_check, the dead crawl is failed once its heartbeat is stale (whatever the
// PIDs: some rounds restart while the killed process is still a zombie, some give the dead crawl the PID of the
// live server), the last complete report and the index are intact; at the end a full crawl completes.
// The first two rounds keep the real 30 s limit; the others use SVC_CRAWL_DEAD_AFTER_MS=3000 to stay short.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { printTable } from './lib/measure.js';
import { BENCH_TOKEN, serve, type Served, startDocsSite, SVC, svc, writeDocsConfig } from './lib/services.js';

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
  const crawl = async (s: Served, id: number) =>
    (await (await fetch(`${api(s)}/crawls/${id}`, { headers })).json()) as { status: string };
  const waitEnd = async (s: Served, id: number) => {
    for (;;) {
      const rec = await crawl(s, id);
      if (rec.status !== 'queued' && rec.status !== 'running') return rec.status;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const snapshot = async (s: Served): Promise<Snapshot> => {
    const report = (await (await fetch(`${api(s)}/link-report?limit=1`, { headers })).json()) as Record<
      string,
      { count: number }
    >;
    const counts = Object.fromEntries(
      ['notFound', 'forbidden', 'serverError', 'redirect', 'unknown'].map((k) => [k, report[k]!.count]),
    );
    const search = (await (
      await fetch(`${api(s)}/search`, { method: 'POST', headers, body: JSON.stringify({ terms: 'table' }) })
    ).json()) as { total: number };
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
  let maxRunningMs = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const deadAfterMs = round <= 2 ? 30_000 : 3_000;
    const env = { SVC_CRAWL_DEAD_AFTER_MS: String(deadAfterMs) };
    // Rounds of three kinds: a plain kill; a kill whose process stays a zombie (its parent never reaps it) while
    // the next server starts; a kill after which the dead crawl carries the PID of the live server.
    const kind = (['plain', 'zombie', 'reused pid'] as const)[round % 3]!;
    s = kind === 'zombie' ? await serveUnreaped(config, env) : await serve(['--config', config, '--port', '0'], env);
    const id = await startFull(s);
    const delay = 100 + Math.floor(Math.random() * Math.max(1, crawlMs * 0.85 - 100));
    await new Promise((r) => setTimeout(r, delay));
    await s.stop('SIGKILL');
    const killedAt = Date.now();
    const db = new Database(join(dataDir, 'svc.db'));
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    db.close();
    const next = await serve(['--config', config, '--port', '0'], env);
    if (kind === 'reused pid') {
      const rw = new Database(join(dataDir, 'svc.db'));
      rw.prepare('UPDATE crawls SET owner_pid = ? WHERE id = ?').run(next.proc.pid, id);
      rw.close();
    }
    // The dead crawl must end failed within the limit (plus one sweep), never stay running.
    let status = (await crawl(next, id)).status;
    while ((status === 'running' || status === 'queued') && Date.now() - killedAt < deadAfterMs + 10_000) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await crawl(next, id)).status;
    }
    const deadAfter = Date.now() - killedAt;
    const now = await snapshot(next);
    await next.stop();
    await (s as Partial<{ reap(): Promise<void> }>).reap?.();
    if (status === 'completed' && late < ROUNDS) {
      // This crawl was quicker than the kill: it tests nothing; run the round again.
      late++;
      round--;
      continue;
    }
    const intact = JSON.stringify(now) === JSON.stringify(baseline);
    const ok = integrity === 'ok' && status === 'failed' && deadAfter <= deadAfterMs + 10_000 && intact;
    if (!ok) failures++;
    maxRunningMs = Math.max(maxRunningMs, deadAfter);
    rows.push([
      round,
      kind,
      delay,
      integrity,
      `${status} after ${(deadAfter / 1000).toFixed(1)} s (limit ${deadAfterMs / 1000} s)`,
      intact ? 'yes' : `no ${JSON.stringify(now)}`,
      ok ? 'ok' : 'FAIL',
    ]);
  }
  s = await serve(['--config', config, '--port', '0']);
  const last = await startFull(s);
  const lastStatus = await waitEnd(s, last);
  const after = await snapshot(s);
  await s.stop();

  console.log(
    `\nbench:crash — ${ROUNDS} kill -9 rounds during a full crawl (a full crawl takes ${crawlMs} ms here; ${late} kill(s) came after the crawl had ended and were repeated)\n`,
  );
  printTable(
    ['round', 'kind', 'killed after ms', 'integrity_check', 'dead crawl', 'report+index intact', 'result'],
    rows,
  );
  console.log(`\nlongest a killed crawl stayed running: ${(maxRunningMs / 1000).toFixed(1)} s`);
  console.log(
    `\nfinal full crawl: ${lastStatus}; report+index equal to baseline: ${JSON.stringify(after) === JSON.stringify(baseline)}`,
  );
  console.log(`${ROUNDS - failures} passed, ${failures} failed`);
  if (failures || lastStatus !== 'completed') process.exitCode = 1;
}

/**
 * `svc serve` as the child of a process that never reaps its children (sh exec'ing sleep): once killed, it stays a
 * zombie, its PID taken, while the next server starts.
 */
async function serveUnreaped(config: string, env: NodeJS.ProcessEnv): Promise<Served & { reap(): Promise<void> }> {
  const parent = spawn(
    'sh',
    ['-c', `"${process.execPath}" "${SVC}" serve --config "${config}" --port 0 & exec sleep 600`],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`svc serve did not start:\n${buf}`)), 60_000);
    parent.stderr!.setEncoding('utf8');
    parent.stderr!.on('data', (c: string) => {
      buf += c;
      const m = /"base_url":"(http:[^"]+)"/.exec(buf);
      if (m) {
        clearTimeout(timer);
        parent.stderr!.removeAllListeners('data');
        parent.stderr!.resume();
        resolve(m[1]!);
      }
    });
  });
  const child = Number(
    execFileSync('pgrep', ['-P', String(parent.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')[0],
  );
  return {
    proc: parent,
    baseUrl,
    stop: async (signal = 'SIGTERM') => {
      process.kill(child, signal);
      // Killed, but its parent never waits for it: a zombie holding its PID.
      await new Promise((r) => setTimeout(r, 200));
    },
    reap: async () => {
      parent.kill('SIGKILL');
      await new Promise((r) => parent.once('exit', r));
    },
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
