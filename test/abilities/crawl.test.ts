// Crawl abilities over the real embedded backend and crawler, against a small site on loopback; on SQLite and on
// PostgreSQL.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import type { Role, User } from '../../src/model/users.js';
import { addRoleUsers, makeAppOn, ONE_HOST, makeHost } from '../support/app.js';
import { DIALECTS, storeKit, type StoreKit } from '../support/stores.js';
import type { AbilityHost } from '../../src/abilities/runtime.js';

let server: Server;
let app: App;
let host: AbilityHost;
let users: Record<Role, { user: User; token: string }>;
let missingAnswer = 404;
/** Delay of the page answers (ms), so a crawl lasts long enough to be followed. */
let delayMs = 0;

afterEach(async () => {
  host.close();
  await app.close();
  await new Promise<void>((r) => server.close(() => r()));
});

async function start(kit: StoreKit): Promise<string> {
  missingAnswer = 404; // each test starts from a broken /missing (the first one fixes it)
  server = createServer(async (req, res) => {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    if (req.url === '/robots.txt' || req.url === '/sitemap.xml') return void res.writeHead(404).end();
    if (req.url === '/')
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><head><title>Home</title></head><body><a href="/missing">x</a> volunteer</body></html>');
    if (req.url === '/missing')
      return void res.writeHead(missingAnswer, { 'content-type': 'text/html' }).end('<html><title>M</title></html>');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await makeAppOn(
    kit,
    {
      targets: [
        {
          host: hostPort,
          scheme: 'http',
          track_links: 'all',
          walk_links: true,
          use_sitemap: false,
          respect_robots_txt: false,
        },
      ],
    },
    ONE_HOST,
  );
  users = await addRoleUsers(app);
  ({ host } = await makeHost(app));
  return `http://${hostPort}`;
}

describe.each(DIALECTS)('crawl abilities (embedded) on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('manual crawl returns the crawl record at once; its end drops the cached link report', async () => {
    const site = await start(kit);
    const admin = { user: users.administrator.user };
    const full = (await host.registry.execute('svc/full-crawl', {}, admin)) as {
      id: number;
      mode: string;
      status: string;
    };
    expect(full).toMatchObject({
      mode: 'full',
      status: expect.stringMatching(/^(queued|running)$/),
      urls: null,
      error: null,
    });
    expect((await app.backend.waitForCrawl(full.id)).status).toBe('completed');

    const before = (await host.registry.execute('svc/link-report', {}, admin)) as {
      summary: { not_found: number };
      last_full_crawl: string | null;
    };
    expect(before.summary.not_found).toBe(1);
    expect(before.last_full_crawl).not.toBeNull();

    // The page is fixed; a manual crawl of the page re-checks its link. Its end must drop the cached report.
    missingAnswer = 200;
    const manual = (await host.registry.execute('svc/manual-crawl', { urls: [`${site}/`] }, admin)) as {
      id: number;
      urls: string[];
    };
    expect(manual.urls).toEqual([`${site}/`]);
    await app.backend.waitForCrawl(manual.id);
    const after = (await host.registry.execute('svc/link-report', {}, admin)) as {
      summary: { not_found: number };
      last_full_crawl: string | null;
    };
    expect(after.summary.not_found).toBe(0);
    expect(after.last_full_crawl).toBe(before.last_full_crawl); // a manual crawl never moves it
  });

  it('svc/get-crawl with wait_seconds follows a crawl in process to its end, with progress; a short wait answers it still running', async () => {
    delayMs = 400;
    try {
      await start(kit);
      missingAnswer = 200; // a site of two pages: / and /missing
      const admin = { user: users.administrator.user };
      const full = (await host.registry.execute('svc/full-crawl', {}, admin)) as { id: number };
      const short = (await host.registry.execute('svc/get-crawl', { id: full.id, wait_seconds: 0.2 }, admin)) as {
        status: string;
        finished_at: string | null;
      };
      expect(short).toMatchObject({ status: expect.stringMatching(/^(queued|running)$/), finished_at: null });
      const heard: { done: number; queued: number; message: string }[] = [];
      const done = (await host.registry.execute(
        'svc/get-crawl',
        { wait_seconds: 30 },
        { ...admin, onProgress: (p) => void heard.push(p) },
      )) as Record<string, unknown>;
      expect(done).toMatchObject({
        id: full.id,
        mode: 'full',
        status: 'completed',
        finished_at: expect.any(String),
        stats: { pages: 2 },
      });
      expect(heard.length).toBeGreaterThanOrEqual(1);
      expect(heard.at(-1)!.message).toMatch(
        new RegExp(`^crawl ${full.id}: \\d+ pages?, \\d+ links? \\(\\d+ broken\\) so far, \\d+ queued`),
      );
      // A caller that goes away stops the wait, not the crawl.
      const again = (await host.registry.execute(
        'svc/manual-crawl',
        { urls: [`http://${app.config.targets[0]!.host}/`] },
        admin,
      )) as { id: number };
      const gone = new AbortController();
      setTimeout(() => gone.abort(), 100);
      const t = Date.now();
      const cut = (await host.registry.execute(
        'svc/get-crawl',
        { id: again.id, wait_seconds: 30 },
        { ...admin, signal: gone.signal },
      )) as { status: string };
      expect(Date.now() - t).toBeLessThan(5000);
      expect(cut.status).toMatch(/^(queued|running)$/);
      expect((await app.backend.waitForCrawl(again.id)).status).toBe('completed');
    } finally {
      delayMs = 0;
    }
  });

  it('a second crawl while one runs → svc_api_error 409', async () => {
    await start(kit);
    const admin = { user: users.administrator.user };
    const first = (await host.registry.execute('svc/full-crawl', {}, admin)) as { id: number };
    const second = await host.registry.execute('svc/partial-crawl', {}, admin).catch((e: unknown) => e);
    await app.backend.waitForCrawl(first.id);
    expect(second).toMatchObject({ code: 'svc_api_error', status: 409, data: { upstream_status: 409 } });
  });
});
