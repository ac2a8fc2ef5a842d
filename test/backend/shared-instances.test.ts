// Two `svc serve` processes on one PostgreSQL database behind a small round-robin proxy (each request to the other
// instance than the one before): a crawl started through MCP on one is followed to its end on the other (as a plain
// call and as a task), a 2025-era request carrying a session id another instance never issued is answered (the /mcp
// endpoint keeps no sessions), and every request of the test is answered, whichever instance it reaches.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSvc, svcOutput, type ServeProcess } from '../support/cli.js';
import { startQuokkaSite } from '../support/mcp.js';
import { rawClient } from '../support/mcp-raw.js';
import { createDatabase, skip, startPostgres, type PgCluster } from '../support/postgres.js';
import type { TestSite } from '../support/site.js';

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
    cluster = startPostgres();
    await createDatabase(cluster, 'instances');
    site = await startQuokkaSite(100);
    const dir = mkdtempSync(join(tmpdir(), 'svc-instances-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        data_dir: join(dir, 'data'),
        database_url: cluster.connectionString('instances'),
        targets: [{ host: site.host, scheme: 'http', track_links: 'all', concurrency: 2, request_timeout_ms: 3000 }],
        server: { host: '127.0.0.1', port: 0 },
        log_level: 'warn',
      }),
    );
    // The user is in the database: every instance knows the token.
    token = (await svcOutput(['users', 'add', 'admin', '--role', 'administrator', '--config', config])).trim();
    instances = await Promise.all([0, 1].map(() => serveSvc(config, { cwd: dir, env: { SVC_LOG_LEVEL: 'info' } })));
    proxy = await roundRobin(instances.map((p) => p.baseUrl));
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await Promise.all(instances.map((p) => p.stop()));
    await site?.close();
    cluster?.stop();
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
