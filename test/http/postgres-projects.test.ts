// The service on PostgreSQL (database_url): two projects in one database, each in its own schema, crawled from
// their own loopback sites through /v1 — crawl records, changes, link report, search, and keys that never cross.
// Nothing lands in data_dir. Runs on a throw-away cluster (skipped outside CI when no server is installed).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApp, type App } from '../../src/app/open-app.js';
import { httpDeps } from '../../src/app/http.js';
import { createApiKey } from '../../src/auth/keys.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { createV1Handler } from '../../src/http/v1.js';
import { silentLogger } from '../../src/lib/log.js';
import { PgStore, projectSchema } from '../../src/store/pg/store.js';
import { html, startSite, type TestSite } from '../support/site.js';
import { pgFixture, skip, type PgFixture } from '../support/postgres.js';
import { tempDir } from '../support/app.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const A = 'orchard1:eu-north-1';
const B = 'plantn02:us-east-1';

describe('projectSchema', () => {
  it('names a plain token svc_<id>_<region>, and adds a hash where two tokens could meet', () => {
    expect(projectSchema('demo:local')).toBe('svc_demo_local');
    expect(projectSchema('a_b:c')).toBe('svc_a_b_c');
    // a-b:c would be svc_a_b_c too without the hash; and letter case is kept apart.
    expect(projectSchema('a-b:c')).toMatch(/^svc_a_b_c_[0-9a-f]{8}$/);
    expect(projectSchema('Demo:local')).not.toBe(projectSchema('demo:local'));
    const long = projectSchema(`${'x'.repeat(64)}:${'y'.repeat(32)}`);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z_][a-z0-9_]*$/);
  });
});

describe.skipIf(skip)('/v1 with two projects on PostgreSQL', () => {
  let db: PgFixture;
  let url: string;
  let siteA: TestSite;
  let siteB: TestSite;
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
    for (let i = 0; i < 400; i++) {
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
    db = pgFixture();
    url = db.cluster.connectionString(await db.createDatabase());
    siteA = await startSite({
      '/': html('<a href="/apple">apple</a> <a href="/gone-a">old</a>', { title: 'Orchard home' }),
      '/apple': html('<p>Apple fruit from the orchard</p>', { title: 'Apple' }),
    });
    siteB = await startSite({
      '/': html('<a href="/banana">banana</a> <a href="/gone-b">old</a>', { title: 'Plantation home' }),
      '/banana': html('<p>Banana fruit from the plantation</p>', { title: 'Banana' }),
    });
    dataDir = tempDir('svc-pg-projects-');
    const target = (s: TestSite) => ({
      host: s.host,
      scheme: 'http',
      use_sitemap: false,
      track_links: 'all',
      request_timeout_ms: 5000,
    });
    const config = parseConfig({
      data_dir: dataDir,
      database_url: url,
      log_level: 'silent',
      projects: [
        { public_token: A, targets: [target(siteA)] },
        { public_token: B, targets: [target(siteB)] },
      ],
    });
    app = await loadApp(config, { logger: silentLogger });
    keyA = (await createApiKey(app.project(A)!.store.sql, A, 'a')).key;
    keyB = (await createApiKey(app.project(B)!.store.sql, B, 'b')).key;
    server = createHttpServer({ logger: silentLogger, handlers: [createV1Handler(httpDeps(app))] });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await app?.close();
    await siteA?.close();
    await siteB?.close();
    await db?.close();
  });

  it('opens a PgStore per project, each on its own schema; SQLite-only paths say so', () => {
    expect(app.projects.map((p) => p.store.dialect)).toEqual(['pg', 'pg']);
    expect(app.project(A)!.store).toBeInstanceOf(PgStore);
    expect(app.project(A)!.store.location).toContain(`(schema ${projectSchema(A)})`);
    expect(() => app.sqlite).toThrow(/SQLite store only.*PostgreSQL/);
  });

  it('crawls each project; crawl records, changes, report and search answer from PostgreSQL and never cross', async () => {
    const a = await crawlToEnd(A, keyA);
    const b = await crawlToEnd(B, keyB);
    expect(a).toMatchObject({ status: 'completed', stats: { pages: 2 } });
    expect(b).toMatchObject({ status: 'completed', stats: { pages: 2 } });
    expect(a.id).toBe(1);
    expect(b.id).toBe(1);

    const crawlsA = (await (await get(A, '/crawls', keyA)).json()) as { crawls: { id: number; status: string }[] };
    expect(crawlsA.crawls).toEqual([expect.objectContaining({ id: 1, status: 'completed' })]);
    const changes = await get(A, `/crawls/${a.id}/changes`, keyA);
    expect(changes.status).toBe(200);
    expect(await changes.json()).toMatchObject({ new: expect.any(Array), fixed: [] });
    expect((await get(A, '/crawls/999/changes', keyA)).status).toBe(404);

    const reportA = JSON.stringify(await (await get(A, '/link-report', keyA)).json());
    const reportB = JSON.stringify(await (await get(B, '/link-report', keyB)).json());
    expect(reportA).toContain(`${siteA.origin}/gone-a`);
    expect(reportA).not.toContain(siteB.host);
    expect(reportB).toContain(`${siteB.origin}/gone-b`);

    const search = async (token: string, terms: string) =>
      ((await (await post(token, '/search', null, { terms })).json()) as { hits: { url: string }[] }).hits.map(
        (h) => h.url,
      );
    expect(await search(A, 'fruit')).toEqual([`${siteA.origin}/apple`]);
    expect(await search(B, 'fruit')).toEqual([`${siteB.origin}/banana`]);
    expect(await search(B, 'apple orchard')).toEqual([]);

    // Two schemas in one database, each holding its own project's pages only.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const [token, site] of [
        [A, siteA],
        [B, siteB],
      ] as const) {
        const { rows } = await client.query<{ url: string }>(`SELECT url FROM ${projectSchema(token)}.pages`);
        expect(rows.length).toBe(2);
        expect(rows.every((r) => r.url.startsWith(site.origin))).toBe(true);
      }
    } finally {
      await client.end();
    }
  });

  it("a key of project A gets 404 on B's paths", async () => {
    for (const path of ['/crawls', '/link-report']) {
      expect((await get(B, path, keyA)).status).toBe(404);
      expect((await get(B, path, keyB)).status).toBe(200);
    }
    expect((await post(B, '/crawls', keyA, { mode: 'full' })).status).toBe(404);
  });

  it('leaves no SQLite file in data_dir', () => {
    const files = existsSync(dataDir) ? readdirSync(dataDir, { recursive: true }).map(String) : [];
    expect(files.filter((f) => /\.db(-wal|-shm)?$/.test(f))).toEqual([]);
    expect(existsSync(join(dataDir, 'svc.db'))).toBe(false);
  });
});
