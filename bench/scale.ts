// npm run bench:scale — several `svc serve` on one PostgreSQL database behind nginx, and a crawl that outlives the
// processes killed under it. A throw-away cluster (bench/lib/postgres.ts) and the generated site (bench/lib/link-site.ts)
// on 127.0.0.1; nginx (Debian's, with its own config in a temp directory, in the foreground) spreads requests round
// robin over 1, 2 and 3 instances (BENCH_INSTANCES). For each count autocannon drives, at once for BENCH_SECONDS
// (default 10, after BENCH_WARMUP_SECONDS, default 3, of the same load discarded), `/v1` search (POST, public) and MCP `tools/call` of svc-search as a 2026-07-28 client sends it (one
// POST, its headers, no session), BENCH_CONNECTIONS (default 16) connections each; the table gives requests/s,
// p50 and p99 per endpoint and the errors (transport errors, timeouts and non-2xx together), then where the CPU
// went per request: the svc serve processes and the PostgreSQL backends of their pools (/proc).
// Then the crash: two instances and two `svc worker` share one full crawl of BENCH_CRASH_PAGES pages; the instance
// that leads it is killed with -9, then (once another process has taken the lead over) one worker; the crawl must
// complete with every page stored once. Its processes run with a dead-owner limit of 5 s and leases of 4 s
// (SVC_CRAWL_DEAD_AFTER_MS, SVC_SHARED_LEASE_MS) so the run stays short; the defaults are 30 s and 20 s.
// Targets: no error, p99 with 2 and 3 instances within 2× of one instance's, every crawl completed. Exit status 1
// when one is missed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadApp, type App } from '../src/app/open-app.js';
import { parseConfig } from '../src/cli/load-config.js';
import { silentLogger } from '../src/lib/log.js';
import { linkSite } from './lib/link-site.js';
import { printTable } from './lib/measure.js';
import { benchPostgres, createDatabase } from './lib/postgres.js';
import { BENCH_TOKEN, serve, SVC, svcAsync, type Served } from './lib/services.js';

const COUNTS = (process.env.BENCH_INSTANCES ?? '1,2,3').split(',').map((s) => Number(s.trim()));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** A discarded run of the same load before each measured one. */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const PAGES = Number(process.env.BENCH_PAGES ?? 500);
const CRASH_PAGES = Number(process.env.BENCH_CRASH_PAGES ?? 1500);
const NGINX_PORT = Number(process.env.BENCH_SCALE_PORT ?? 18199);
const MODERN = '2026-07-28';
const WORKER_HEADER = 'x-bench-worker';
/** The crash run's processes: a dead owner found within 5 s, a dead worker's claims back within 4 s. */
const CRASH_ENV = { SVC_CRAWL_DEAD_AFTER_MS: '5000', SVC_SHARED_LEASE_MS: '4000' };

if (COUNTS.some((n) => !Number.isInteger(n) || n < 1)) {
  console.error('BENCH_INSTANCES must be a comma-separated list of instance counts (e.g. "1,2,3")');
  process.exit(2);
}

/** A config of the bench project on the database, crawling `host`; `name` goes in a request header the site counts. */
function writeConfig(dir: string, databaseUrl: string, host: string, name: string, pages: number): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      project: { public_token: BENCH_TOKEN },
      data_dir: join(dir, 'data'),
      database_url: databaseUrl,
      log_level: 'warn',
      server: { host: '127.0.0.1', port: 0 },
      // The bench measures the service at full load, not its per-client rate limit.
      rate_limits: { enabled: false },
      targets: [
        {
          host,
          scheme: 'http',
          use_sitemap: false,
          concurrency: 4,
          max_pages: pages + 1000,
          request_headers: { [WORKER_HEADER]: name },
        },
      ],
    }),
  );
  return file;
}

/** nginx in the foreground, round robin over `upstreams` (base URLs), on 127.0.0.1:port. */
async function startNginx(upstreams: string[], port: number): Promise<{ stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-nginx-'));
  mkdirSync(join(dir, 'tmp'));
  const servers = upstreams.map((u) => `server ${new URL(u).host};`).join(' ');
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp; proxy_temp_path ${dir}/tmp; fastcgi_temp_path ${dir}/tmp; uwsgi_temp_path ${dir}/tmp; scgi_temp_path ${dir}/tmp;
  # Idle upstream connections closed before svc serve closes them (Node: 5 s), else a POST may meet a closing one: 502.
  upstream svc { ${servers} keepalive 64; keepalive_timeout 4s; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://svc;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
    }
  }
}
`,
  );
  const proc = spawn('nginx', ['-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'inherit' });
  for (let i = 0; i < 100; i++) {
    if (proc.exitCode !== null) throw new Error(`nginx exited with ${proc.exitCode} (see ${dir}/error.log)`);
    if ((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok) break;
    await sleep(100);
  }
  return {
    stop: () =>
      new Promise<void>((done) => {
        proc.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          done();
        });
        proc.kill('SIGQUIT');
      }),
  };
}

interface LoadRow {
  instances: number;
  endpoint: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** What the errors were. */
  errorKinds: string;
}

/** The load on 1…n instances behind nginx: /v1 search and MCP tools/call at once. */
/** CPU seconds (user + system) a process has used so far, from /proc (0 once it is gone). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime: fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The PostgreSQL backends serving clients now (the instances' pools). */
async function backendPids(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const r = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    return r.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/** Where the CPU of the measured load went: the svc serve processes and the PostgreSQL backends, per request. */
interface CpuSplit {
  svcMsPerRequest: number;
  pgMsPerRequest: number;
}

async function loadRun(
  n: number,
  configs: string[],
  userToken: string,
  databaseUrl: string,
): Promise<{ rows: LoadRow[]; cpu: CpuSplit }> {
  const servers: Served[] = [];
  try {
    for (let i = 0; i < n; i++)
      servers.push(await serve(['--config', configs[i]!, '--port', '0'], { SVC_CONFIG: '', SVC_LOG_LEVEL: 'info' }));
    const nginx = await startNginx(
      servers.map((s) => s.baseUrl),
      NGINX_PORT,
    );
    try {
      const base = `http://127.0.0.1:${NGINX_PORT}`;
      const envelope = {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'bench-scale', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const drive = (duration: number) =>
        Promise.all([
          autocannon({
            url: `${base}/v1/projects/${encodeURIComponent(BENCH_TOKEN)}/search`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ terms: 'frontier lease', params: { size: 10 } }),
            connections: CONNECTIONS,
            duration,
          }),
          autocannon({
            url: `${base}/mcp`,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json',
              authorization: `Bearer ${userToken}`,
              'mcp-protocol-version': MODERN,
              'mcp-method': 'tools/call',
              'mcp-name': 'svc-search',
            },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'svc-search', arguments: { terms: 'politeness queue' }, _meta: envelope },
            }),
            connections: CONNECTIONS,
            duration,
          }),
        ]);
      // Discarded: new processes run cold (JIT, connection pools) for their first seconds.
      if (WARMUP_SECONDS > 0) await drive(WARMUP_SECONDS);
      const pids = [...servers.map((x) => x.proc.pid!), ...(await backendPids(databaseUrl))];
      const before = pids.map(cpuSeconds);
      const [search, mcp] = await drive(SECONDS);
      const used = pids.map((pid, i) => cpuSeconds(pid) - before[i]!);
      const svcCpu = used.slice(0, n).reduce((a, b) => a + b, 0);
      const pgCpu = used.slice(n).reduce((a, b) => a + b, 0);
      const requests = search.requests.total + mcp.requests.total;
      const row = (endpoint: string, r: Awaited<ReturnType<typeof autocannon>>): LoadRow => ({
        instances: n,
        endpoint,
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors: r.errors + r.timeouts + r.non2xx,
        errorKinds: `${r.errors} transport, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`,
      });
      return {
        rows: [row('POST /v1/…/search', search), row('MCP tools/call svc-search', mcp)],
        cpu: { svcMsPerRequest: (svcCpu * 1000) / requests, pgMsPerRequest: (pgCpu * 1000) / requests },
      };
    } finally {
      await nginx.stop();
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

interface CrashResult {
  status: string;
  pages: number;
  storedWithCrawl: number;
  seconds: number;
  takeoverSeconds: number | null;
  refetched: number;
  steps: string[];
}

/** Reads the crawl record on the bench's own connection. */
async function crawlRow(app: App, id: number): Promise<{ status: string; owner_pid: number | null; pages: number }> {
  return (await app.store.sql.get<{ status: string; owner_pid: number | null; pages: number }>(
    'SELECT status, owner_pid, pages FROM crawls WHERE id = ?',
    [id],
  ))!;
}

/** svcAsync's stdout, or an error with its stderr when it fails. */
async function svcOk(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const r = await svcAsync(args, env);
  if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited with ${r.code}: ${r.stderr}`);
  return r.stdout;
}

async function until<T>(what: string, fn: () => Promise<T | null | false>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Two instances and two workers share a full crawl; the instance leading it, then a worker, are killed with -9. */
async function crashRun(databaseUrl: string): Promise<CrashResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-scale-crash-'));
  const { site, counts } = await linkSite({ pages: CRASH_PAGES, latencyMs: 40, workerHeader: WORKER_HEADER });
  const procs = new Map<number, { name: string; proc: ChildProcess }>();
  const steps: string[] = [];
  let app: App | null = null;
  try {
    const cfg = (name: string) => writeConfig(dir, databaseUrl, site.host, name, CRASH_PAGES);
    const env = { ...CRASH_ENV, SVC_CONFIG: '', SVC_LOG_LEVEL: 'warn' };
    // svc serve says where it listens at level info.
    const servers = [await serve(['--config', cfg('s1'), '--port', '0'], { ...env, SVC_LOG_LEVEL: 'info' })];
    servers.push(await serve(['--config', cfg('s2'), '--port', '0'], { ...env, SVC_LOG_LEVEL: 'info' }));
    for (const [i, s] of servers.entries()) procs.set(s.proc.pid!, { name: `s${i + 1}`, proc: s.proc });
    app = await loadApp(
      parseConfig({ project: { public_token: BENCH_TOKEN }, data_dir: dir, database_url: databaseUrl }),
      {
        logger: silentLogger,
      },
    );
    const queued = JSON.parse(
      (await svcOk(['crawl', 'full', '--queue', '--config', cfg('q')], env)).trim().split('\n').pop()!,
    ) as { id: number };
    const t0 = Date.now();
    const led = await until('an instance to claim the crawl', async () => {
      const r = await crawlRow(app!, queued.id);
      return r.status === 'running' && r.owner_pid && procs.has(r.owner_pid) ? r.owner_pid : null;
    });
    steps.push(`${procs.get(led)!.name} claimed it`);
    for (const name of ['w1', 'w2']) {
      const proc = spawn(process.execPath, [SVC, 'worker', '--config', cfg(name), '--concurrency', '2'], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      procs.set(proc.pid!, { name, proc });
    }
    await until('both workers to fetch pages', async () =>
      ['w1', 'w2'].every((w) => (counts.byWorker.get(w) ?? 0) >= 5),
    );
    procs.get(led)!.proc.kill('SIGKILL');
    const killedAt = Date.now();
    steps.push(`${procs.get(led)!.name} (the lead) killed -9 after ${counts.pageGets.size} pages`);
    const next = await until('another process to take the lead over', async () => {
      const r = await crawlRow(app!, queued.id);
      if (r.status !== 'running') return -1;
      return r.owner_pid && r.owner_pid !== led ? r.owner_pid : null;
    });
    const takeoverSeconds = next > 0 ? (Date.now() - killedAt) / 1000 : null;
    if (next > 0) steps.push(`${procs.get(next)?.name ?? `pid ${next}`} took the lead over`);
    const victim = [...procs.entries()].find(([pid, p]) => p.name.startsWith('w') && pid !== next);
    if (victim && (await crawlRow(app, queued.id)).status === 'running') {
      victim[1].proc.kill('SIGKILL');
      steps.push(`${victim[1].name} (a worker) killed -9 after ${counts.pageGets.size} pages`);
    } else steps.push('the crawl had ended before a worker could be killed');
    const end = await until(
      'the crawl to end',
      async () => {
        const r = await crawlRow(app!, queued.id);
        return r.status !== 'running' && r.status !== 'queued' ? r : null;
      },
      300_000,
    );
    const stored = await app.store.sql.get<{ n: number }>('SELECT count(*) AS n FROM pages WHERE crawl_id = ?', [
      queued.id,
    ]);
    return {
      status: end.status,
      pages: end.pages,
      storedWithCrawl: stored!.n,
      seconds: (Date.now() - t0) / 1000,
      takeoverSeconds,
      refetched: [...counts.pageGets.values()].filter((c) => c > 1).length,
      steps,
    };
  } finally {
    for (const { proc } of procs.values()) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await app?.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const cluster = benchPostgres();
  const rows: LoadRow[] = [];
  const cpus: (CpuSplit & { n: number })[] = [];
  let crash: CrashResult | null = null;
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-scale-'));
  const { site } = await linkSite({ pages: PAGES, latencyMs: 5, workerHeader: WORKER_HEADER });
  try {
    console.error(
      `bench:scale — ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}; instances ${COUNTS.join(', ')}, ${SECONDS} s, ${CONNECTIONS} connections per endpoint`,
    );
    const url = await createDatabase(cluster, 'bench_scale');
    const configs = [1, 2, 3, 4].map((i) => writeConfig(dir, url, site.host, `s${i}`, PAGES));
    const env = { SVC_CONFIG: '', SVC_LOG_LEVEL: 'warn' };
    const token = (
      await svcOk(['users', 'add', 'bench', '--role', 'administrator', '--config', configs[0]!], env)
    ).trim();
    await svcOk(['crawl', 'full', '--config', configs[0]!], env);
    console.error(`  indexed ${PAGES} pages`);
    for (const n of COUNTS) {
      const { rows: r, cpu } = await loadRun(n, configs, token, url);
      cpus.push({ n, ...cpu });
      for (const row of r)
        console.error(
          `  ${n} instance(s), ${row.endpoint}: ${row.rps.toFixed(0)} req/s, p99 ${row.p99} ms, ${row.errors} errors`,
        );
      rows.push(...r);
    }
    crash = await crashRun(await createDatabase(cluster, 'bench_scale_crash'));
    console.error(`  crash run: ${crash.steps.join('; ')}; ${crash.status}`);
  } finally {
    await site.close();
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  const one = (endpoint: string) => rows.find((r) => r.instances === 1 && r.endpoint === endpoint);
  console.log(
    `\n## bench:scale — nginx round robin over N svc serve on one PostgreSQL database; ${CONNECTIONS} connections per endpoint, both at once, ${SECONDS} s; ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)} at the end\n`,
  );
  printTable(
    ['instances', 'endpoint', 'requests/s', 'p50 ms', 'p99 ms', 'p99 vs 1 instance', 'errors', 'of which'],
    rows.map((r) => {
      const base = one(r.endpoint);
      return [
        r.instances,
        r.endpoint,
        r.rps,
        r.p50,
        r.p99,
        base ? `${(r.p99 / base.p99).toFixed(2)}×` : '–',
        r.errors,
        r.errors ? r.errorKinds : '',
      ];
    }),
  );
  console.log('\nwhere the CPU of the measured load went, per request (both endpoints together):\n');
  printTable(
    ['instances', 'svc serve CPU ms/request', 'PostgreSQL backends CPU ms/request'],
    cpus.map((c) => [c.n, c.svcMsPerRequest, c.pgMsPerRequest]),
  );
  const problems: string[] = [];
  for (const r of rows) {
    if (r.errors) problems.push(`${r.instances} instance(s), ${r.endpoint}: ${r.errors} errors`);
    const base = one(r.endpoint);
    if (base && r.p99 > 2 * base.p99)
      problems.push(`${r.instances} instance(s), ${r.endpoint}: p99 ${r.p99} ms > 2× ${base.p99} ms`);
  }
  if (crash) {
    console.log(
      `\ncrash run (${CRASH_PAGES} pages, 2 instances + 2 workers, dead-owner limit 5 s, leases 4 s): ${crash.steps.join('; ')}.`,
    );
    printTable(
      [
        'status',
        'pages (record)',
        'pages stored by the crawl',
        'seconds',
        'takeover s after the kill',
        'pages fetched twice',
      ],
      [
        [
          crash.status,
          crash.pages,
          crash.storedWithCrawl,
          crash.seconds,
          crash.takeoverSeconds ?? '–',
          crash.refetched,
        ],
      ],
    );
    if (crash.status !== 'completed') problems.push(`crash run: crawl ${crash.status}`);
    if (crash.pages !== CRASH_PAGES || crash.storedWithCrawl !== CRASH_PAGES)
      problems.push(
        `crash run: ${crash.pages} pages in the record, ${crash.storedWithCrawl} stored, of ${CRASH_PAGES}`,
      );
  }
  console.log(
    `\ntargets: no error, p99 within 2× of one instance, every crawl completed — ${problems.length ? `NOT met: ${problems.join('; ')}` : 'met'}`,
  );
  if (problems.length) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
