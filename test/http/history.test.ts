// History over the /v1 facade and the svc/link-report ability, on real crawls of a loopback site: since (query
// parameter and ability input) with its counts and its error, first_seen in both forms, the changes route (200,
// 404, 409) and the deliveries list (never a secret); the remote backend through those routes. On SQLite and on
// PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { openAbilityHost } from '../../src/app/ability-host.js';
import { addUser } from '../../src/auth/users.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';
import { AbilityError } from '../../src/abilities/types.js';
import { startSite, type TestSite } from '../support/site.js';
import { makeAppOn, startFacade, type Facade } from '../support/app.js';
import { DIALECTS, storeKit } from '../support/stores.js';
import { RemoteBackend } from '../../src/backend/remote.js';
import { silentLogger } from '../../src/lib/log.js';

const SECRET = 'the-webhook-secret-1234';

describe.each(DIALECTS)('history on %s', (dialect) => {
  const kit = storeKit(dialect);
  let site: TestSite;
  let app: App;
  let api: Facade;
  let host: AbilityHost;
  let broken = ['/gone1'];

  beforeAll(async () => {
    site = await startSite({
      '/': (_q, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><body>${broken.map((b) => `<a href="${b}">x</a>`).join('')}</body></html>`),
    });
    app = await makeAppOn(kit, {
      targets: [{ host: site.host, scheme: 'http', track_links: 'all', use_sitemap: false }],
      webhooks: [{ url: `http://127.0.0.1:9/hook?token=abc`, secret: SECRET, allow_private: true }],
    });
    api = await startFacade(app);
    host = await openAbilityHost(app);
    await addUser(app.store.sql, 'admin', 'administrator');
  });

  afterAll(async () => {
    host?.close();
    await api?.close();
    await app?.close();
    await site?.close();
    await kit.stop();
  });

  const get = async (path: string) => {
    const res = await fetch(`${api.api}${path}`, { headers: { authorization: `Bearer ${api.key}` } });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  async function crawl(): Promise<Record<string, any>> {
    const res = await fetch(`${api.api}/crawls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
      body: '{"mode":"full"}',
    });
    expect(res.status).toBe(202);
    const rec = (await res.json()) as { id: number };
    return app.backend.waitForCrawl(rec.id) as Promise<Record<string, any>>;
  }

  it('since filters the report over REST and the ability; changes and deliveries over REST', async () => {
    const first = await crawl();
    broken = ['/gone1', '/gone2'];
    const second = await crawl();

    const all = await get('/link-report');
    expect(all.status).toBe(200);
    expect(all.body.notFound.count).toBe(2);
    const firstSeen = Object.fromEntries(
      all.body.notFound.pages[0].links.map((l: any) => [l.url.replace(site.origin, ''), l.firstSeen]),
    );
    expect(firstSeen).toEqual({ '/gone1': first.finishedAt, '/gone2': second.finishedAt });

    const since = await get(`/link-report?since=${encodeURIComponent(first.finishedAt)}`);
    expect(since.status).toBe(200);
    expect(since.body.notFound.count).toBe(1);
    expect(since.body.notFound.pages[0].links.map((l: any) => l.url)).toEqual([`${site.origin}/gone2`]);

    const bad = await get('/link-report?since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({
      code: 'invalid_input',
      message: expect.stringMatching(/^since: must be an ISO 8601 time/),
    });

    const admin = { user: { login: 'admin', role: 'administrator' as const } };
    const ability = (await host.registry.execute(
      'svc/link-report',
      { since: first.finishedAt, refresh: true },
      admin,
    )) as Record<string, any>;
    expect(ability.summary.not_found).toBe(1);
    expect(ability.links).toEqual([
      expect.objectContaining({ link: `${site.origin}/gone2`, first_seen: second.finishedAt }),
    ]);
    const full = (await host.registry.execute('svc/link-report', {}, admin)) as Record<string, any>;
    expect(full.links.map((l: any) => l.first_seen)).toEqual([first.finishedAt, second.finishedAt]);
    try {
      await host.registry.execute('svc/link-report', { since: 'last week' }, admin);
      throw new Error('expected an error');
    } catch (err) {
      expect(err).toBeInstanceOf(AbilityError);
      expect((err as AbilityError).code).toBe('ability_invalid_input');
      expect((err as AbilityError).message).toMatch(/since: must be an ISO 8601 time/);
    }

    const changes = await get(`/crawls/${second.id}/changes`);
    expect(changes.status).toBe(200);
    expect(changes.body).toEqual({
      since: first.finishedAt,
      new: [
        {
          page: `${site.origin}/`,
          url: `${site.origin}/gone2`,
          reason: 'not_found',
          httpStatus: 404,
          message: expect.any(String),
          element: 'a',
          text: 'x',
          firstSeen: second.finishedAt,
        },
      ],
      fixed: [],
    });
    expect((await get('/crawls/999/changes')).body.error.code).toBe('crawl_not_found');
    expect((await get('/crawls/999/changes')).status).toBe(404);

    const deliveries = await get('/webhook-deliveries?limit=1');
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toMatchObject({ limit: 1, offset: 0 });
    expect(deliveries.body.deliveries).toEqual([
      {
        id: expect.any(String),
        event: 'crawl.completed',
        url: 'http://127.0.0.1:9/hook?token=abc',
        crawl: second.id,
        status: 'pending',
        attempts: 0,
        lastError: null,
        nextAttemptAt: expect.any(String),
        createdAt: expect.any(String),
        deliveredAt: null,
      },
    ]);
    expect(JSON.stringify((await get('/webhook-deliveries')).body)).not.toContain(SECRET);
    expect((await get('/webhook-deliveries?limit=0')).status).toBe(400);

    // The remote backend reads the same through these routes.
    const remote = new RemoteBackend({
      baseUrl: api.baseUrl,
      apiKey: api.key,
      publicToken: app.backend.publicToken,
      logger: silentLogger,
    });
    try {
      expect(await remote.crawlChanges(second.id)).toEqual(await app.backend.crawlChanges(second.id));
      expect(await remote.listWebhookDeliveries({ limit: 5, offset: 0 })).toEqual(
        await app.backend.listWebhookDeliveries({ limit: 5, offset: 0 }),
      );
      expect(await remote.linkReport({ limit: 10, since: first.finishedAt })).toEqual(
        await app.backend.linkReport({ limit: 10, since: first.finishedAt }),
      );
      await expect(remote.crawlChanges(999)).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await remote.close();
    }
  }, 60_000);

  it('409 for the changes of a crawl that has not ended', async () => {
    const res = await fetch(`${api.api}/crawls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
      body: '{"mode":"full"}',
    });
    const rec = (await res.json()) as { id: number };
    const changes = await get(`/crawls/${rec.id}/changes`);
    await app.backend.waitForCrawl(rec.id);
    expect(changes.status).toBe(409);
    expect(changes.body.error.code).toBe('conflict');
  });
});
