// Two `svc serve` processes on one PostgreSQL database behind a small round-robin proxy (each request to the other
// instance than the one before): a crawl started through MCP on one is followed to its end on the other (as a plain
// call and as a task), a 2025-era request carrying a session id another instance never issued is answered (the /mcp
// endpoint keeps no sessions), and every request of the test is answered, whichever instance it reaches.
// A crawl a person starts on an instance (through /v1, or as an MCP task) survives that instance killed with -9:
// the other instance takes its lead over and completes it, every page stored once and every count exact.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlRecord } from '../../src/model/types.js';
import { hereOutput, serveSvc, type ServeProcess } from '../support/cli.js';
import { startQuokkaSite } from '../support/mcp.js';
import { rawClient } from '../support/mcp-raw.js';
import { createDatabase, runCluster, skip, uniqueDatabaseName, type PgCluster } from '../support/postgres.js';
import { startSite, type TestSite } from '../support/site.js';
import { until } from '../support/wait.js';

/** The run's cluster (each describe has a database of its own in it). */
let pg: PgCluster | undefined;
const clusterOnce = (): PgCluster => (pg ??= runCluster());
afterAll(() => pg?.stop());
const INSTANCES = uniqueDatabaseName('instances');
const TAKEOVER = uniqueDatabaseName('takeover');

/** A proxy that sends each request to the next upstream in turn; `served` lists which one answered each. */
async function roundRobin(upstreams: string[]): Promise<{ url: string; served: number[]; close(): Promise<void> }> {
  const served: number[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const i = next++ % upstreams.length;
    served.push(i);
    const target = new URL(req.url ?? '/', upstreams[i]);
    const out = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', (err) => res.writeHead(502).end(String(err)));
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.skipIf(skip)('two svc serve on one PostgreSQL database', () => {
  let cluster: PgCluster;
  let site: TestSite;
  let instances: ServeProcess[] = [];
  let proxy: Awaited<ReturnType<typeof roundRobin>>;
  let token: string;

  beforeAll(async () => {
    cluster = clusterOnce();
    await createDatabase(cluster, INSTANCES);
    site = await startQuokkaSite(100);
    const dir = mkdtempSync(join(tmpdir(), 'svc-instances-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        data_dir: join(dir, 'data'),
        database_url: cluster.connectionString(INSTANCES),
        targets: [{ host: site.host, scheme: 'http', track_links: 'all', concurrency: 2, request_timeout_ms: 3000 }],
        server: { host: '127.0.0.1', port: 0 },
        log_level: 'warn',
      }),
    );
    // The user is in the database: every instance knows the token.
    token = (await hereOutput(['users', 'add', 'admin', '--role', 'administrator', '--config', config])).trim();
    instances = await Promise.all([0, 1].map(() => serveSvc(config, { cwd: dir, env: { SVC_LOG_LEVEL: 'info' } })));
    proxy = await roundRobin(instances.map((p) => p.baseUrl));
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await Promise.all(instances.map((p) => p.stop()));
    await site?.close();
  });

  /** One 2026-07-28 request through the proxy, as a client sends it (no session, the standard headers). */
  async function rpc(
    method: string,
    params: Record<string, unknown>,
    capabilities: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const { status, body } = await rawClient(`${proxy.url}/mcp`, token)(method, params, { capabilities });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.error).toBeUndefined();
    return body.result!;
  }

  it('a crawl started through MCP on one instance is followed to its end on the other', async () => {
    const started = await rpc('tools/call', { name: 'svc-full-crawl', arguments: {} });
    const crawl = (started.structuredContent as { id: number }).id;
    const startedOn = proxy.served.at(-1)!;
    let status = 'queued';
    const readOn = new Set<number>();
    for (let round = 0; round < 20 && (status === 'queued' || status === 'running'); round++) {
      const got = await rpc('tools/call', { name: 'svc-get-crawl', arguments: { id: crawl, wait_seconds: 5 } });
      readOn.add(proxy.served.at(-1)!);
      status = (got.structuredContent as { status: string }).status;
    }
    expect(status).toBe('completed');
    // Read on the instance that did not start it (and on the one that did).
    expect(readOn.has(1 - startedOn)).toBe(true);
    // The crawl ran in exactly one of them.
    const ran = instances.filter((p) => p.logs.some((l) => l.msg === 'crawl started' && l.crawl === crawl));
    expect(ran).toHaveLength(1);
    // Search answers the same on both.
    const answers = await Promise.all(
      [0, 1].map(async () => {
        const r = await rpc('tools/call', { name: 'svc-search', arguments: { terms: 'quokka' } });
        return (r.structuredContent as { results: { total: number } }).results.total;
      }),
    );
    expect(new Set(proxy.served.slice(-2)).size).toBe(2);
    expect(answers[0]).toBeGreaterThan(0);
    expect(answers[1]).toBe(answers[0]);
  }, 90_000);

  it('a crawl as an MCP task, created on one instance, is followed with tasks/get on both to completed', async () => {
    const withTasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const started = await rpc('tools/call', { name: 'svc-full-crawl', arguments: {} }, withTasks);
    expect(started).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = started.taskId as string;
    const createdOn = proxy.served.at(-1)!;
    const readOn = new Set<number>();
    let task: Record<string, unknown> = started;
    for (let round = 0; round < 120 && task.status === 'working'; round++) {
      await new Promise((r) => setTimeout(r, 250));
      task = await rpc('tasks/get', { taskId }, withTasks);
      readOn.add(proxy.served.at(-1)!);
    }
    expect(task.status, JSON.stringify(task)).toBe('completed');
    expect(readOn.has(1 - createdOn)).toBe(true);
    const result = task.result as { structuredContent: { status: string; id: number } };
    expect(result.structuredContent.status).toBe('completed');
  }, 90_000);

  it('a 2025-era request with a session id from elsewhere is answered by either instance: /mcp keeps no sessions', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${proxy.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2025-11-25',
          'mcp-session-id': 'issued-by-another-instance',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/svc-search/);
    }
    expect(new Set(proxy.served.slice(-2)).size).toBe(2);
  });
});

describe.skipIf(skip)('a crawl a person starts outlives its instance, on PostgreSQL', () => {
  const TOKEN = 'takeovr1:eu-north-1';
  // 40 pages of 100 ms, two at a time: about 2 s of crawling, time to kill the instance that leads it.
  const PAGES = 40;
  const MISSING = PAGES / 5;
  /** Path → GETs (robots.txt left out). */
  const gets = new Map<string, number>();
  let sent304 = 0;
  let site: TestSite;
  let dir: string;
  let config: string;
  let key: string;
  let userToken: string;
  /** The instance that lives through every test, and the ones killed. */
  let survivor: ServeProcess;
  const killed: ServeProcess[] = [];
  // A lead silent for 3 s is dead; a dead process's claims go back after 1.5 s.
  const env = { SVC_CRAWL_DEAD_AFTER_MS: '3000', SVC_SHARED_LEASE_MS: '1500', SVC_LOG_LEVEL: 'info' };

  beforeAll(async () => {
    await createDatabase(clusterOnce(), TAKEOVER);
    site = await startSite({}, async (req, res, url) => {
      if (url.pathname === '/robots.txt') return void res.writeHead(404).end();
      const i = url.pathname === '/' ? 0 : Number(url.pathname.slice(3));
      if (!Number.isInteger(i) || i < 0 || i >= PAGES) return void res.writeHead(404).end();
      gets.set(url.pathname, (gets.get(url.pathname) ?? 0) + 1);
      await sleep(100);
      // Every page has a validator: a crawl after the first gets 304 for each (not modified).
      const etag = `"p${i}"`;
      if (req.headers['if-none-match'] === etag) {
        sent304++;
        return void res.writeHead(304, { etag }).end();
      }
      const links = [1, 2, 3].map((k) => 3 * i + k).filter((j) => j < PAGES);
      // Every fifth page links to a page that is not there: MISSING broken links, each an error of the crawl.
      const missing = i % 5 === 0 ? ` <a href="/missing/${i}">gone</a>` : '';
      res
        .writeHead(200, { 'content-type': 'text/html', etag })
        .end(`<title>p${i}</title>${links.map((j) => `<a href="/p/${j}">p${j}</a>`).join(' ')}${missing}`);
    });
    dir = mkdtempSync(join(tmpdir(), 'svc-takeover-'));
    config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        project: { public_token: TOKEN },
        data_dir: join(dir, 'data'),
        database_url: clusterOnce().connectionString(TAKEOVER),
        targets: [{ host: site.host, scheme: 'http', track_links: 'all', concurrency: 2, request_timeout_ms: 3000 }],
        server: { host: '127.0.0.1', port: 0 },
        log_level: 'warn',
      }),
    );
    key = (await hereOutput(['keys', 'create', '--config', config])).trim();
    userToken = (await hereOutput(['users', 'add', 'admin', '--role', 'administrator', '--config', config])).trim();
    survivor = await serveSvc(config, { cwd: dir, env });
  }, 60_000);
  afterAll(async () => {
    await survivor?.stop();
    await Promise.all(killed.map((p) => p.stop()));
    await site?.close();
  });

  const api = (base: string, path = '') => `${base}/v1/projects/${encodeURIComponent(TOKEN)}/crawls${path}`;
  const auth = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

  /** A second instance, killed with -9 once it has fetched a few pages of the crawl it leads. */
  async function killMidCrawl(instance: ServeProcess, crawl: number): Promise<void> {
    await until(
      'the crawl to fetch a few pages',
      () =>
        instance.logs.some((l) => l.msg === 'crawl started' && l.crawl === crawl && l.shared === true) &&
        gets.size >= 5,
      15_000,
      { everyMs: 20 },
    );
    expect(gets.size).toBeLessThan(PAGES);
    instance.child.kill('SIGKILL');
    await instance.exited;
  }

  /** The survivor took the crawl over and ended it, once; every page fetched, none stored twice. */
  function expectTakenOver(crawl: number): void {
    const took = survivor.logs.filter(
      (l) => l.msg === 'the lead of a shared crawl stopped answering: taking it over' && l.crawl === crawl,
    );
    expect(took).toHaveLength(1);
    expect(survivor.logs.filter((l) => l.msg === 'crawl ended' && l.crawl === crawl)).toHaveLength(1);
    expect(gets.size).toBe(PAGES);
  }

  it('a crawl started through /v1 on an instance killed with -9 is completed by the other: each page once, counts exact', async () => {
    const doomed = await serveSvc(config, { cwd: dir, env });
    killed.push(doomed);
    gets.clear();
    const res = await fetch(api(doomed.baseUrl), { method: 'POST', headers: auth(), body: '{"mode":"full"}' });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as CrawlRecord;
    await killMidCrawl(doomed, id);
    const rec = await until(
      'the other instance to complete the crawl',
      async () => {
        const r = (await (await fetch(api(survivor.baseUrl, `/${id}`), { headers: auth() })).json()) as CrawlRecord;
        return r.status === 'running' || r.status === 'queued' ? null : r;
      },
      30_000,
      { everyMs: 100 },
    );
    expect(rec, JSON.stringify(rec)).toMatchObject({
      status: 'completed',
      stats: { pages: PAGES, links: PAGES + MISSING, errors: MISSING },
    });
    expectTakenOver(id);
  }, 60_000);

  it('a crawl as an MCP task on an instance killed with -9: tasks/get on the other ends completed, not-modified counted once', async () => {
    const doomed = await serveSvc(config, { cwd: dir, env });
    killed.push(doomed);
    gets.clear();
    sent304 = 0;
    const withTasks = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
    const started = await rawClient(`${doomed.baseUrl}/mcp`, userToken)(
      'tools/call',
      { name: 'svc-full-crawl', arguments: {} },
      withTasks,
    );
    expect(started.body.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = started.body.result!.taskId as string;
    const crawl = await until('the crawl to start', () =>
      doomed.logs.find((l) => l.msg === 'crawl started' && typeof l.crawl === 'number'),
    );
    await killMidCrawl(doomed, crawl.crawl!);
    const task = await until(
      'the task to end on the other instance',
      async () => {
        const { body } = await rawClient(`${survivor.baseUrl}/mcp`, userToken)('tasks/get', { taskId }, withTasks);
        return body.result?.status === 'working' ? null : body.result;
      },
      30_000,
      { everyMs: 100 },
    );
    expect(task?.status, JSON.stringify(task)).toBe('completed');
    const result = task!.result as { structuredContent: { status: string; stats: CrawlRecord['stats'] } };
    expect(result.structuredContent, JSON.stringify(result.structuredContent)).toMatchObject({
      status: 'completed',
      stats: { pages: PAGES, links: PAGES + MISSING, errors: MISSING },
    });
    // The second crawl: every page answered 304 (a few of them twice, to the dead instance and then the survivor),
    // and each counted once however many the dead instance had reported.
    expect(sent304).toBeGreaterThanOrEqual(PAGES);
    const rec = (await (
      await fetch(api(survivor.baseUrl, `/${crawl.crawl}`), { headers: auth() })
    ).json()) as CrawlRecord;
    expect(rec.stats, JSON.stringify(rec)).toMatchObject({ pages: PAGES, notModified: PAGES });
    expectTakenOver(crawl.crawl!);
  }, 60_000);
});
