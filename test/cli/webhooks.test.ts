// Webhooks end to end with real processes: `svc serve` runs a crawl of a loopback site and sends its crawl.completed
// event to a loopback receiver the test starts. A receiver that fails three times gets exactly one successful
// delivery, with a signature the test verifies; a kill -9 of the server while a delivery is pending loses nothing.
import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startSite, type TestSite } from '../support/site.js';
import { runHere, runSvc, serveSvc } from '../support/cli.js';
import { until } from '../support/wait.js';

const TOKEN = 'hook0002:eu-north-1';
const SECRET = 'receiver-shared-secret';

interface Receiver {
  url: string;
  /** Answers 500 while > 0 (counting down), or always while `failing`. */
  failNext: number;
  failing: boolean;
  requests: { status: number; body: string; headers: Record<string, string | string[] | undefined> }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const r = { failNext: 0, failing: false, requests: [] } as unknown as Receiver;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const fail = r.failing || r.failNext > 0;
    if (r.failNext > 0) r.failNext--;
    const status = fail ? 500 : 204;
    r.requests.push({ status, body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
    res.writeHead(status).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () =>
    new Promise((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return r;
}

let site: TestSite;
const cleanup: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(
  receiver: Receiver,
  extra: Record<string, unknown> = {},
): Promise<{ dir: string; configPath: string; key: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-hooks-'));
  const configPath = join(dir, 'svc.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      project: { public_token: TOKEN },
      data_dir: join(dir, 'data'),
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', use_sitemap: false }],
      webhooks: [{ url: receiver.url, secret: SECRET, events: ['crawl.completed'], allow_private: true }],
      log_level: 'info',
      ...extra,
    }),
  );
  const keys = await runHere(['keys', 'create', '--config', configPath]);
  expect(keys.status).toBe(0);
  return { dir, configPath, key: keys.stdout.trim() };
}

async function serve(
  configPath: string,
  retryBaseMs: number,
): Promise<{ child: ChildProcess; api: string; log: () => string }> {
  const p = await serveSvc(configPath, { env: { SVC_WEBHOOK_RETRY_BASE_MS: String(retryBaseMs) } });
  cleanup.push(() => p.stop());
  return { child: p.child, api: `${p.baseUrl}/v1/projects/${encodeURIComponent(TOKEN)}`, log: p.stderr };
}

const call = async (api: string, key: string, path: string, body?: unknown) => {
  const res = await fetch(`${api}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

it('a receiver that fails three times gets exactly one delivery of the event, signed', async () => {
  site = await startSite({
    '/': (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/missing">gone</a>'),
  });
  cleanup.push(() => site.close());
  const receiver = await startReceiver();
  cleanup.push(() => receiver.close());
  receiver.failNext = 3;
  const { configPath, key } = await setup(receiver);
  const server = await serve(configPath, 200);
  const started = await call(server.api, key, '/crawls', { mode: 'full' });
  expect(started.status).toBe(202);

  await until(
    'a successful delivery',
    async () => (receiver.requests.some((r) => r.status === 204) ? true : undefined),
    30_000,
    { everyMs: 150 },
  );
  // Nothing more arrives after the success (back-off of 200 ms would have sent again by now).
  await new Promise((r) => setTimeout(r, 1500));
  expect(receiver.requests.map((r) => r.status)).toEqual([500, 500, 500, 204]);
  const ok = receiver.requests[3]!;
  expect(new Set(receiver.requests.map((r) => r.headers['x-svc-delivery'])).size).toBe(1);
  expect(ok.headers['content-type']).toBe('application/json');
  expect(ok.headers['x-svc-signature-256']).toBe(
    `sha256=${createHmac('sha256', SECRET).update(Buffer.from(ok.body, 'utf8')).digest('hex')}`,
  );
  const body = JSON.parse(ok.body);
  expect(body).toMatchObject({
    event: 'crawl.completed',
    project: TOKEN,
    crawl: { id: started.body.id, status: 'completed' },
    changes: { newCount: 1, fixedCount: 0 },
  });
  expect(body.changes.new).toEqual([
    expect.objectContaining({ page: `${site.origin}/`, url: `${site.origin}/missing`, reason: 'not_found' }),
  ]);

  const list = await call(server.api, key, '/webhook-deliveries');
  expect(list.body.deliveries).toEqual([
    expect.objectContaining({
      id: ok.headers['x-svc-delivery'],
      event: 'crawl.completed',
      url: receiver.url,
      status: 'delivered',
      attempts: 4,
    }),
  ]);
  expect(server.log()).not.toContain(SECRET);
}, 60_000);

it('kill -9 of svc serve while a delivery is pending loses no delivery after a restart', async () => {
  site = await startSite({
    '/': (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/x">x</a>'),
  });
  cleanup.push(() => site.close());
  const receiver = await startReceiver();
  cleanup.push(() => receiver.close());
  receiver.failing = true;
  const { configPath, key } = await setup(receiver);
  const first = await serve(configPath, 5_000);
  expect((await call(first.api, key, '/crawls', { mode: 'full' })).status).toBe(202);
  await until('the first attempt', async () => (receiver.requests.length ? true : undefined), 30_000, { everyMs: 150 });
  // The attempt failed and is recorded pending, 5 s before its retry: the server dies without a word.
  await until(
    'pending',
    async () =>
      (await call(first.api, key, '/webhook-deliveries')).body.deliveries[0]?.status === 'pending' ? true : undefined,
    5_000,
    { everyMs: 150 },
  );
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  const before = receiver.requests.length;

  receiver.failing = false;
  const second = await serve(configPath, 5_000);
  await until(
    'the delivery after the restart',
    async () => (receiver.requests.some((r) => r.status === 204) ? true : undefined),
    30_000,
    { everyMs: 150 },
  );
  expect(receiver.requests.slice(before).map((r) => r.status)).toEqual([204]);
  const list = await call(second.api, key, '/webhook-deliveries');
  expect(list.body.deliveries).toEqual([expect.objectContaining({ status: 'delivered', attempts: before + 1 })]);
  const ok = receiver.requests.at(-1)!;
  expect(ok.headers['x-svc-delivery']).toBe(list.body.deliveries[0].id);
  expect(ok.headers['x-svc-signature-256']).toBe(
    `sha256=${createHmac('sha256', SECRET).update(ok.body).digest('hex')}`,
  );
}, 90_000);

it('the loop as a site owner runs it: a link breaks between two scheduled crawls; the webhook and svc changes say so', async () => {
  let home = '<a href="/a">a</a>';
  site = await startSite({
    '/': (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(home),
    '/a': (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>a</p>'),
  });
  cleanup.push(() => site.close());
  const receiver = await startReceiver();
  cleanup.push(() => receiver.close());
  const { configPath } = await setup(receiver, { schedule: { full: '*/2 * * * * *' } });
  const server = await serve(configPath, 200);
  const bodies = () => receiver.requests.filter((r) => r.status === 204).map((r) => JSON.parse(r.body));

  // The first scheduled crawl finds nothing broken; then the site breaks a link.
  await until('the first scheduled crawl', async () => (bodies().length ? true : undefined), 30_000, { everyMs: 150 });
  expect(bodies()[0]).toMatchObject({
    event: 'crawl.completed',
    crawl: { trigger: 'schedule:full', mode: 'full' },
    changes: { newCount: 0 },
  });
  home = '<a href="/a">a</a> <a href="/team">team</a>';
  const broke = await until(
    'a scheduled crawl that sees the break',
    async () => bodies().find((b) => b.changes.newCount > 0),
    30_000,
    { everyMs: 150 },
  );
  expect(broke.crawl.trigger).toBe('schedule:full');
  expect(broke.changes.new).toEqual([
    expect.objectContaining({ page: `${site.origin}/`, url: `${site.origin}/team`, reason: 'not_found' }),
  ]);
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');

  const changes = await runSvc(['changes', String(broke.crawl.id), '--json', '--config', configPath]);
  expect(changes.status, changes.stderr).toBe(0);
  const out = JSON.parse(changes.stdout);
  expect(out.new).toEqual([
    expect.objectContaining({ page: `${site.origin}/`, url: `${site.origin}/team`, reason: 'not_found' }),
  ]);
  expect(out.fixed).toEqual([]);
}, 90_000);
