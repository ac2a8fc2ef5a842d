// Two projects in one service (the `projects` form): each on its own SQLite file, crawled from its own loopback
// site through /v1; crawls, reports, search, webhooks and keys stay apart, and a key of one project never opens
// the other. SQLite only (a file per project); the same on PostgreSQL (a schema per project) is
// postgres-projects.test.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApp, type App } from '../../src/app/open-app.js';
import { projectDatabaseFile } from '../../src/app/project.js';
import { httpDeps } from '../../src/app/http.js';
import { createApiKey } from '../../src/auth/keys.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { createV1Handler } from '../../src/http/v1.js';
import { silentLogger } from '../../src/lib/log.js';
import { Store } from '../../src/store/sqlite/store.js';
import { html, startSite, type TestSite } from '../support/site.js';
import { tempDir } from '../support/app.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const A = 'orchard1:eu-north-1';
const B = 'plantn02:us-east-1';

interface Hit {
  url: string;
}

describe('/v1 with two projects', () => {
  let siteA: TestSite;
  let siteB: TestSite;
  let hooks: TestSite;
  /** Bodies of the webhook POSTs received. */
  const received: { event: string; project: string; crawl: { id: number } }[] = [];
  let app: App;
  let server: Server;
  let base: string;
  let keyA: string;
  let keyB: string;
  let dataDir: string;

  const api = (token: string, path: string) => `${base}/v1/projects/${encodeURIComponent(token)}${path}`;
  const get = (token: string, path: string, key: string | null) =>
    fetch(api(token, path), { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const post = (token: string, path: string, key: string | null, body: unknown) =>
    fetch(api(token, path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });

  async function crawlToEnd(
    token: string,
    key: string,
  ): Promise<{ id: number; status: string; stats: { pages: number } }> {
    const res = await post(token, '/crawls', key, { mode: 'full' });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: number };
    for (let i = 0; i < 200; i++) {
      const rec = (await (await get(token, `/crawls/${id}`, key)).json()) as {
        id: number;
        status: string;
        stats: { pages: number };
      };
      if (rec.status !== 'queued' && rec.status !== 'running') return rec;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`crawl ${id} of ${token} did not end`);
  }

  beforeAll(async () => {
    // Both sites share the word "fruit", so a search that leaked across projects would show it.
    siteA = await startSite({
      '/': html('<a href="/apple">apple</a> <a href="/gone-a">old</a>', { title: 'Orchard home' }),
      '/apple': html('<p>Apple fruit from the orchard</p>', { title: 'Apple' }),
    });
    siteB = await startSite({
      '/': html('<a href="/banana">banana</a> <a href="/gone-b">old</a>', { title: 'Plantation home' }),
      '/banana': html('<p>Banana fruit from the plantation</p>', { title: 'Banana' }),
    });
    hooks = await startSite({
      '/hook': async (req, res) => {
        let body = '';
        for await (const chunk of req) body += String(chunk);
        received.push(JSON.parse(body) as (typeof received)[number]);
        res.writeHead(204).end();
      },
    });
    dataDir = tempDir('svc-projects-');
    const target = (s: TestSite) => ({
      host: s.host,
      scheme: 'http',
      use_sitemap: false,
      track_links: 'all',
      request_timeout_ms: 5000,
    });
    const config = parseConfig({
      data_dir: dataDir,
      log_level: 'silent',
      projects: [
        { public_token: A, targets: [target(siteA)] },
        {
          public_token: B,
          targets: [target(siteB)],
          webhooks: [{ url: `${hooks.origin}/hook`, secret: 's'.repeat(16), allow_private: true }],
        },
      ],
    });
    app = await loadApp(config, { logger: silentLogger });
    keyA = (await createApiKey(app.project(A)!.store.sql, A, 'a')).key;
    keyB = (await createApiKey(app.project(B)!.store.sql, B, 'b')).key;
    await app.startWebhookDeliveries();
    server = createHttpServer({ logger: silentLogger, handlers: [createV1Handler(httpDeps(app))] });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await app?.close();
    await siteA?.close();
    await siteB?.close();
    await hooks?.close();
  });

  it('keeps each project in its own database file under <data_dir>/projects', () => {
    expect(app.projects.map((p) => p.token)).toEqual([A, B]);
    expect(app.project(A)!.sqlite.path).toBe(join(dataDir, 'projects', 'orchard1_eu-north-1.db'));
    expect(app.project(B)!.sqlite.path).toBe(join(dataDir, 'projects', 'plantn02_us-east-1.db'));
    expect(projectDatabaseFile(app.config, B)).toBe(app.project(B)!.sqlite.path);
    expect(existsSync(join(dataDir, 'svc.db'))).toBe(false);
    // The host side acts on the first project.
    expect(app.store).toBe(app.project(A)!.store);
    expect(app.backend).toBe(app.project(A)!.backend);
  });

  it('crawls each project from its own site; reports and search never cross', async () => {
    const a = await crawlToEnd(A, keyA);
    const b = await crawlToEnd(B, keyB);
    expect(a).toMatchObject({ status: 'completed', stats: { pages: 2 } });
    expect(b).toMatchObject({ status: 'completed', stats: { pages: 2 } });
    expect(siteA.hitCount('/apple')).toBeGreaterThan(0);
    expect(siteB.hitCount('/banana')).toBeGreaterThan(0);
    // Both databases numbered their first crawl 1: they share nothing.
    expect(a.id).toBe(1);
    expect(b.id).toBe(1);

    const crawlsA = (await (await get(A, '/crawls', keyA)).json()) as { crawls: unknown[] };
    expect(crawlsA.crawls).toHaveLength(1);

    const reportA = JSON.stringify(await (await get(A, '/link-report', keyA)).json());
    const reportB = JSON.stringify(await (await get(B, '/link-report', keyB)).json());
    expect(reportA).toContain(`${siteA.origin}/gone-a`);
    expect(reportA).not.toContain(siteB.host);
    expect(reportB).toContain(`${siteB.origin}/gone-b`);
    expect(reportB).not.toContain(siteA.host);

    const search = async (token: string, terms: string) =>
      ((await (await post(token, '/search', null, { terms })).json()) as { hits: Hit[] }).hits.map((h) => h.url);
    expect(await search(B, 'fruit')).toEqual([`${siteB.origin}/banana`]);
    expect(await search(A, 'fruit')).toEqual([`${siteA.origin}/apple`]);
    expect(await search(B, 'apple orchard')).toEqual([]);

    // Not merely filtered at query time: project B's file holds none of A's pages.
    const fileB = new Store(app.project(B)!.sqlite.path, { readonly: true });
    try {
      const urls = (fileB.db.prepare('SELECT url FROM pages').all() as { url: string }[]).map((r) => r.url);
      expect(urls.length).toBeGreaterThan(0);
      expect(urls.every((u) => u.startsWith(siteB.origin))).toBe(true);
    } finally {
      fileB.close();
    }
  });

  it("sends each project's webhooks for its own crawls only", async () => {
    for (let i = 0; i < 100 && !received.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(received).toEqual([
      expect.objectContaining({ event: 'crawl.completed', project: B, crawl: expect.objectContaining({ id: 1 }) }),
    ]);
    const deliveries = async (token: string, key: string) =>
      ((await (await get(token, '/webhook-deliveries', key)).json()) as { deliveries: { status: string }[] })
        .deliveries;
    expect(await deliveries(B, keyB)).toEqual([
      expect.objectContaining({ event: 'crawl.completed', status: 'delivered', url: `${hooks.origin}/hook` }),
    ]);
    expect(await deliveries(A, keyA)).toEqual([]);
  });

  it("a key of project A gets 404 on B's paths, as an unknown project; a made-up key 401", async () => {
    for (const path of ['/crawls', '/link-report', '/schedule', '/webhook-deliveries']) {
      const cross = await get(B, path, keyA);
      expect(cross.status).toBe(404);
      expect(await cross.json()).toEqual({ error: { code: 'not_found', message: 'unknown project' } });
      expect((await get(B, path, keyB)).status).toBe(200);
    }
    const start = await post(B, '/crawls', keyA, { mode: 'full' });
    expect(start.status).toBe(404);
    const del = await post(A, '/pages/delete', keyB, { urls: [`${siteA.origin}/apple`] });
    expect(del.status).toBe(404);
    expect((await post(A, '/search', null, { terms: 'apple' })).status).toBe(200);

    const bogus = await get(B, '/crawls', 'svc_key_not-a-real-key');
    expect(bogus.status).toBe(401);
    expect(bogus.headers.get('www-authenticate')).toMatch(/^Bearer/);
    // A project this service does not serve: 404 whatever the key.
    expect((await get('nothere9:eu-north-1', '/crawls', keyA)).status).toBe(404);
    expect((await post('nothere9:eu-north-1', '/search', null, { terms: 'fruit' })).status).toBe(404);
    // Nothing of B changed through A's key.
    const crawlsB = (await (await get(B, '/crawls', keyB)).json()) as { crawls: unknown[] };
    expect(crawlsB.crawls).toHaveLength(1);
  });
});
