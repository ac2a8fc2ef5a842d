// Findings that stay true over time: an unreachable site, data of hosts no longer configured, crawl ownership by
// heartbeat (whatever the PIDs), stops from another process, and stops that never claim max_pages cut the crawl.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlRunner } from '../../src/backend/crawl-runs/runner.js';
import { buildLinkReport } from '../../src/backend/report/link-report.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TargetConfig } from '../../src/model/config.js';
import type { CrawlRecord } from '../../src/model/types.js';
import { createCrawl, getCrawl, lastFullCrawl } from '../../src/store/crawls.js';
import { searchPages } from '../../src/store/search-index/search.js';
import { Store } from '../../src/store/sqlite/store.js';
import { html, page, startSite, target, type TestSite } from '../support/site.js';
import { runHere, spawnSvc } from '../support/cli.js';
import { until } from '../support/wait.js';
import { pageRows, tempStore } from '../support/stored.js';

const PROJECT = 'find1234:eu-north-1';

function runner(
  store: Store,
  targets: TargetConfig[],
  extra: Partial<ConstructorParameters<typeof CrawlRunner>[0]> = {},
): CrawlRunner {
  return new CrawlRunner({
    store,
    project: PROJECT,
    targets,
    logger: silentLogger,
    fetcher: { maxRetryWaitMs: 20, maxRetries: 1 },
    ...extra,
  });
}

async function crawl(r: CrawlRunner, req: Parameters<CrawlRunner['start']>[0]): Promise<CrawlRecord> {
  return r.wait((await r.start(req)).id);
}

/** A site of `n` pages linked in a chain, each answered after `delayMs`. */
async function chainSite(n: number, delayMs = 0): Promise<TestSite> {
  return startSite({}, async (_req, res, url) => {
    const i = Number(/^\/p(\d+)$/.exec(url.pathname)?.[1] ?? (url.pathname === '/' ? 0 : NaN));
    if (!Number.isInteger(i) || i >= n) return void res.writeHead(404).end();
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(page(`<p>page ${i}</p><a href="/p${i + 1}">next</a> <a href="/missing-${i}">x</a>`));
  });
}

describe('a site that is down', () => {
  let site: TestSite;
  let store: Store;
  let first: CrawlRecord;
  let second: CrawlRecord;
  let t: TargetConfig;

  beforeAll(async () => {
    site = await startSite({ '/': html('<p>home of the wombat</p><a href="/gone">gone</a>') });
    ({ store } = tempStore());
    t = target({ host: site.host, use_sitemap: false, walk_links: true });
    first = await crawl(runner(store, [t]), { mode: 'full' });
    await site.close(); // the port now refuses connections
    second = await crawl(runner(store, [t]), { mode: 'full' });
  });
  afterAll(() => store.close());

  it('ends a full crawl failed, naming the target and why, and leaves last_full_crawl alone', async () => {
    expect(first.status).toBe('completed');
    expect(second.status).toBe('failed');
    expect(second.error).toMatch(new RegExp(`${site.host.replace('.', '\\.')} unreachable: .*connection refused`));
    expect(second.stats.targets?.[site.host]).toMatchObject({
      unreachable: true,
      error: expect.stringMatching(/connection refused/),
    });
    expect(await lastFullCrawl(store.sql, PROJECT)).toBe(first.finishedAt);
  });

  it('keeps every page and finding of the unreachable target, and the report says why', async () => {
    expect([...pageRows(store).keys()]).toEqual([`${site.origin}/`]);
    const report = await buildLinkReport(store.sql, PROJECT, [t], { limit: 100 });
    expect(report.notFound.count).toBe(1);
    expect(report.targets[0]!.lastCrawlError).toMatch(/connection refused/);
  });
});

describe('data of a host that is no longer configured', () => {
  let a: TestSite;
  let b: TestSite;
  let store: Store;

  beforeAll(async () => {
    a = await startSite({ '/': html('<p>shared words of alpha</p><a href="/a-missing">a</a>') });
    b = await startSite({ '/': html('<p>shared words of beta</p><a href="/b-missing">b</a>') });
    ({ store } = tempStore());
    await crawl(runner(store, [target({ host: a.host, use_sitemap: false })]), { mode: 'full' });
    await crawl(runner(store, [target({ host: b.host, use_sitemap: false })]), { mode: 'full' });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    store.close();
  });

  it('stays out of the report of the configured target', async () => {
    const report = await buildLinkReport(store.sql, PROJECT, [target({ host: b.host })], { limit: 100 });
    expect(report.notFound.pages.map((p) => p.url)).toEqual([`${b.origin}/`]);
    expect(report.notFound.count).toBe(1);
  });

  it('stays out of search', () => {
    expect(searchPages(store, 'shared', undefined).total).toBe(2);
    const scoped = searchPages(store, 'shared', undefined, { hosts: [b.host] });
    expect(scoped.total).toBe(1);
    expect(scoped.hits.map((h) => h.url)).toEqual([`${b.origin}/`]);
  });
});

describe('crawl ownership by heartbeat', () => {
  it('a crawl whose owner stopped beating is dead after the limit whatever its PID (alive, ours, or 1)', async () => {
    const { store } = tempStore();
    try {
      for (const pid of [process.pid, 1]) {
        const old = (await createCrawl(store.sql, PROJECT, 'full', undefined, { now: Date.now() - 31_000 }))!;
        store.db.prepare('UPDATE crawls SET status = ?, owner_pid = ? WHERE id = ?').run('running', pid, old.id);
        // Within the limit a live owner keeps it: a second start is refused.
        expect(await createCrawl(store.sql, PROJECT, 'full', undefined, { deadAfterMs: 60_000 })).toBeNull();
        const next = await createCrawl(store.sql, PROJECT, 'full');
        expect(next).not.toBeNull();
        expect(await getCrawl(store.sql, PROJECT, old.id)).toMatchObject({
          status: 'failed',
          error: expect.stringMatching(/^owner stopped answering/),
        });
        store.db.prepare("UPDATE crawls SET status = 'completed' WHERE id = ?").run(next!.id);
      }
    } finally {
      store.close();
    }
  });

  it('after kill -9 of the owning process, a new crawl starts once the heartbeat is stale', async () => {
    const site = await chainSite(500, 30);
    const dir = mkdtempSync(join(tmpdir(), 'svc-owner-'));
    const config = join(dir, 'svc.json');
    writeFileSync(
      config,
      JSON.stringify({
        project: { public_token: PROJECT },
        data_dir: join(dir, 'data'),
        targets: [{ host: site.host, scheme: 'http', use_sitemap: false, walk_links: true, concurrency: 1 }],
      }),
    );
    const { child } = spawnSvc(['crawl', 'full', '--config', config]);
    try {
      const store = await waitForStore(join(dir, 'data', 'svc.db'));
      const running = await until(
        'a running crawl',
        () =>
          (store.db.prepare("SELECT id FROM crawls WHERE status = 'running'").get() as { id: number } | undefined)?.id,
        15_000,
        { retryErrors: true },
      );
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const r = runner(store, [target({ host: site.host, use_sitemap: false })], { deadAfterMs: 1500 });
      await expect(r.start({ mode: 'full' })).rejects.toThrow(/already running/);
      await new Promise((res) => setTimeout(res, 1600));
      const next = await r.start({ mode: 'full' });
      expect(await getCrawl(store.sql, PROJECT, running)).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/owner stopped answering/),
      });
      await r.stopAll();
      expect((await r.wait(next.id)).status).toBe('stopped');
      store.close();
    } finally {
      child.kill('SIGKILL');
      await site.close();
    }
  }, 30_000);
});

describe('stopping a crawl', () => {
  it('from another process: the owner sees the request within a heartbeat and ends it stopped, not cut by max_pages', async () => {
    const site = await chainSite(500, 30);
    const dir = mkdtempSync(join(tmpdir(), 'svc-stop-'));
    const config = join(dir, 'svc.json');
    writeFileSync(
      config,
      JSON.stringify({
        project: { public_token: PROJECT },
        data_dir: join(dir, 'data'),
        targets: [
          { host: site.host, scheme: 'http', use_sitemap: false, walk_links: true, concurrency: 1, max_pages: 20000 },
        ],
      }),
    );
    const crawl = spawnSvc(['crawl', 'full', '--config', config]);
    const child = crawl.child;
    try {
      await until('the crawl to start', () => crawl.stderr().includes('crawl'), 15_000);
      const [stop, code] = await Promise.all([
        runHere(['crawl', 'stop', '--config', config], { env: { SVC_LOG_LEVEL: undefined } }),
        crawl.closed,
      ]);
      const stderr = crawl.stderr();
      const stopCode = stop.status;
      const stopOut = stop.stderr;
      expect(stopCode).toBe(0);
      expect(stopOut).toMatch(/crawl \d+ stopped/);
      expect(code).toBe(1);
      expect(stderr).toMatch(/stopped: a stop was requested/);
      expect(stderr).not.toMatch(/max_pages cut/);
      const store = new Store(join(dir, 'data', 'svc.db'));
      const rec = store.db.prepare('SELECT status, stats FROM crawls ORDER BY id DESC LIMIT 1').get() as {
        status: string;
        stats: string;
      };
      store.close();
      expect(rec.status).toBe('stopped');
      expect(JSON.parse(rec.stats)[site.host].cutByMaxPages).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await site.close();
    }
  }, 30_000);

  it('in this process: stopped with its reason, no target cut, and what it did not fetch is unknown', async () => {
    const site = await chainSite(500, 20);
    const { store } = tempStore();
    const r = runner(store, [
      target({ host: site.host, use_sitemap: false, walk_links: true, concurrency: 1, max_pages: 20000 }),
    ]);
    const rec = await r.start({ mode: 'full' });
    await new Promise((res) => setTimeout(res, 400));
    r.stop(rec.id);
    const end = await r.wait(rec.id);
    expect(end.status).toBe('stopped');
    expect(end.error).toMatch(/^stopped: a stop was requested/);
    expect(end.stats.targets?.[site.host]?.cutByMaxPages).toBe(false);
    store.close();
    await site.close();
  });
});

async function waitForStore(path: string): Promise<Store> {
  return until(
    'the crawl process to create its database',
    () => {
      const s = new Store(path, { migrate: false });
      s.db.prepare('SELECT 1 FROM crawls LIMIT 1').all();
      return s;
    },
    15_000,
    { retryErrors: true },
  );
}
