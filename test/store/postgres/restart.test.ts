// PostgreSQL restarted in the middle of a crawl, on a cluster this test owns: the crawl pauses (its writes wait, the
// reason logged), /healthz says degraded meanwhile, and once the server answers again the crawl completes with every
// page stored, though the outage outlasted the heartbeat limit. A COMMIT is never run twice, and a server that was
// never reached is still the first statement's error.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApp, type App } from '../../../src/app/open-app.js';
import { parseConfig } from '../../../src/cli/load-config.js';
import { createLogger } from '../../../src/lib/log.js';
import { isConnectionLoss } from '../../../src/store/pg/outage.js';
import { PgStore } from '../../../src/store/pg/store.js';
import { createDatabase, skip, startPostgres, type PgCluster } from '../../support/postgres.js';
import { html, startSite, type TestSite } from '../../support/site.js';
import { until } from '../../support/wait.js';

const PROJECT = 'restart1:eu-north-1';
const PAGES = 30;

describe('connection loss', () => {
  it('tells a lost connection from a failed statement', () => {
    expect(isConnectionLoss(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLoss(new Error('wrapped', { cause: { code: 'ECONNREFUSED' } }))).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(
      isConnectionLoss(Object.assign(new Error('commit'), { code: 'SVC_COMMIT_UNKNOWN', cause: { code: '57P01' } })),
    ).toBe(false);
  });
});

describe.skipIf(skip)('a PostgreSQL restart during a crawl', () => {
  let cluster: PgCluster;
  let site: TestSite;
  let app: App | null = null;
  const lines: { msg: string; reason?: string }[] = [];

  beforeAll(async () => {
    cluster = startPostgres();
    await createDatabase(cluster, 'restart');
    // Each page answers after 60 ms, one at a time: the crawl lasts about 2 s, time to stop the server under it.
    site = await startSite({}, async (req, res, url) => {
      await sleep(60);
      const i = url.pathname === '/' ? 0 : Number(url.pathname.slice(3));
      if (!Number.isInteger(i) || i < 0 || i >= PAGES) return void res.writeHead(404).end();
      const links = [2 * i + 1, 2 * i + 2].filter((j) => j < PAGES);
      return html(`<title>p${i}</title>${links.map((j) => `<a href="/p/${j}">p${j}</a>`).join(' ')}`)(req, res, url);
    });
  });
  afterAll(async () => {
    await app?.close();
    await site?.close();
    cluster?.stop();
  });

  it('pauses the crawl while the server is down, says degraded, and completes it once the server is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-pg-restart-'));
    const config = parseConfig({
      project: { public_token: PROJECT },
      data_dir: dir,
      database_url: cluster.connectionString('restart'),
      targets: [{ host: site.host, scheme: 'http', use_sitemap: false, concurrency: 1 }],
      log_level: 'info',
    });
    const logger = createLogger('info', {
      write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }),
    });
    // A heartbeat limit shorter than the outage: no owner is judged dead for the outage's silence. The crawl is a
    // shared one (every crawl on PostgreSQL is): its lead beats four times a lease, so the lease is as short.
    process.env.SVC_CRAWL_DEAD_AFTER_MS = '2000';
    process.env.SVC_SHARED_LEASE_MS = '2000';
    try {
      app = await loadApp(config, { logger });
    } finally {
      delete process.env.SVC_CRAWL_DEAD_AFTER_MS;
      delete process.env.SVC_SHARED_LEASE_MS;
    }
    expect(app.health()).toEqual({ status: 'ok' });
    const started = await app.backend.startCrawl({ mode: 'full' });
    await until('a few pages to be stored', async () => (await app!.backend.getCrawl(started.id))!.stats.pages >= 3);

    cluster.halt();
    await until('the store to notice', () => app!.health().status === 'degraded', 10_000);
    const health = app.health();
    expect(health).toMatchObject({
      status: 'degraded',
      error: expect.stringMatching(/^the database is not answering/),
    });
    expect(Date.parse(health.since!)).toBeLessThanOrEqual(Date.now());
    expect(lines.some((l) => /^PostgreSQL stopped answering/.test(l.msg) && l.reason)).toBe(true);
    // Down for longer than the heartbeat limit.
    await sleep(2500);
    cluster.resume();

    const rec = await app.backend.waitForCrawl(started.id, { timeoutMs: 60_000 });
    expect(rec, rec.error).toMatchObject({ status: 'completed', stats: { pages: PAGES } });
    expect(app.health()).toEqual({ status: 'ok' });
    expect(lines.some((l) => l.msg === 'PostgreSQL answers again: crawls go on')).toBe(true);
    const stored = await app.store.sql.get<{ n: number; d: number }>(
      'SELECT count(*) AS n, count(DISTINCT url) AS d FROM pages',
    );
    expect(stored).toEqual({ n: PAGES, d: PAGES });
  }, 90_000);

  it('a server never reached is the first statement’s error, at once', async () => {
    const store = new PgStore({ url: cluster.connectionString('nosuchdb'), token: PROJECT });
    try {
      const t0 = Date.now();
      await expect(store.sql.get('SELECT 1')).rejects.toThrow(/nosuchdb/);
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      await store.close();
    }
  });
});
