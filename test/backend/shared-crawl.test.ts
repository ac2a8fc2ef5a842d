// Several workers crawling one site together (the crawl runner's share mode, as `svc worker` uses it), on both
// stores: two runners on two connections to one database, each with its own worker name, one leads the queued crawl
// and the other joins it. A loopback site of 40 pages that answer after 15 ms counts every request, the requests in
// flight at once, and which worker asked (a request header each runner's target sends). A second loopback site plays
// the outside world for link checks. A redirect to a page of the crawl is not followed: that page is asked for once.
// A lead that finds its crawl owned by another process (one that took its lead over) leaves it as it is, and so do
// the lead and a promoted lead of a crawl another process has ended meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CrawlRunner } from '../../src/backend/crawl-runs/runner.js';
import { buildLinkReport } from '../../src/backend/report/link-report.js';
import { STOP_REASONS } from '../../src/backend/crawl-runs/finish.js';
import { createLogger, silentLogger } from '../../src/lib/log.js';
import { TargetSchema, type TargetConfig } from '../../src/model/config.js';
import type { CrawlRecord } from '../../src/model/types.js';
import type { ServiceStore } from '../../src/store/service-store.js';
import { html, startSite, type TestSite } from '../support/site.js';
import { DIALECTS, storeKit, type StoreKit } from '../support/stores.js';
import { until } from '../support/wait.js';

const PROJECT = 'share123:eu-north-1';
const PAGES = 40;
const WORKER_HEADER = 'x-test-worker';

interface Traffic {
  /** GET path → count (robots.txt left out). */
  gets: Map<string, number>;
  /** Worker → page GETs. */
  byWorker: Map<string, number>;
  inFlight: number;
  maxInFlight: number;
  /** Every request: when it started, by whom, what. */
  log: { at: number; worker: string; path: string; method: string }[];
}

function newTraffic(): Traffic {
  return { gets: new Map(), byWorker: new Map(), inFlight: 0, maxInFlight: 0, log: [] };
}

const pathOf = (i: number) => (i === 0 ? '/' : `/p/${i}`);

describe.each(DIALECTS)('several workers share one crawl, on %s', (dialect) => {
  let kit: StoreKit;
  let site: TestSite;
  let outside: TestSite;
  let traffic = newTraffic();
  /** A path answered with 429 + Retry-After once (then normally). */
  let limitedOnce: string | null = null;

  beforeAll(async () => {
    kit = storeKit(dialect);
    outside = await startSite({ '/ok': html('fine'), '/gone': (_q, res) => void res.writeHead(410).end() });
    const answer = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
      const worker = String(req.headers[WORKER_HEADER] ?? '?');
      traffic.log.push({ at: Date.now(), worker, path: url.pathname, method: req.method ?? 'GET' });
      traffic.inFlight++;
      traffic.maxInFlight = Math.max(traffic.maxInFlight, traffic.inFlight);
      try {
        await sleep(15);
        if (url.pathname === '/robots.txt')
          return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
        if (req.method === 'GET') {
          traffic.gets.set(url.pathname, (traffic.gets.get(url.pathname) ?? 0) + 1);
          traffic.byWorker.set(worker, (traffic.byWorker.get(worker) ?? 0) + 1);
        }
        if (url.pathname === limitedOnce) {
          limitedOnce = null;
          return void res.writeHead(429, { 'retry-after': '1' }).end();
        }
        if (url.pathname === '/old') return void res.writeHead(301, { location: '/hidden' }).end();
        // Leads to a page of the crawl: never followed (that page is fetched once, by whoever claims it).
        if (url.pathname === '/moved') return void res.writeHead(301, { location: '/p/1' }).end();
        if (url.pathname === '/hidden')
          return void res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<title>Only through a redirect</title><a href="/">home</a>');
        const i = url.pathname === '/' ? 0 : Number(url.pathname.slice(3));
        if (!Number.isInteger(i) || i < 0 || i >= PAGES)
          return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>no</h1>');
        // A tree (every page reachable) and a few links across, so pages are found many times over.
        const links = [
          Math.floor((i - 1) / 3),
          3 * i + 1,
          3 * i + 2,
          3 * i + 3,
          (i * 7) % PAGES,
          (i * 13 + 5) % PAGES,
        ].filter((j) => j >= 0 && j < PAGES && j !== i);
        const extra =
          i === 3
            ? `<a href="/old">old</a> <a href="/moved">moved</a> <a href="/missing">missing</a> <a href="${outside.origin}/ok">ok</a> <a href="${outside.origin}/gone">gone</a>`
            : '';
        const body = `<html><head><title>Page ${i}</title></head><body><h1>Page ${i}</h1>${links.map((j) => `<a href="${pathOf(j)}">p${j}</a>`).join(' ')} ${extra}</body></html>`;
        res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      } finally {
        traffic.inFlight--;
      }
    };
    site = await startSite({}, answer);
  });
  afterAll(async () => {
    await site.close();
    await outside.close();
    await kit.stop();
  });

  /** The target as worker `worker` sees it (its own request header, so the site tells the workers apart). */
  const targetFor = (worker: string, over: Partial<TargetConfig> = {}): TargetConfig =>
    TargetSchema.parse({
      host: site.host,
      scheme: 'http',
      use_sitemap: false,
      track_links: 'all',
      concurrency: 3,
      request_timeout_ms: 5000,
      request_headers: { [WORKER_HEADER]: worker },
      ...over,
    });

  function runner(store: ServiceStore, worker: string, over: Partial<TargetConfig> = {}): CrawlRunner {
    return new CrawlRunner({
      store,
      project: PROJECT,
      targets: [targetFor(worker, over)],
      logger: silentLogger,
      threads: false,
      addressPolicy: { allow: [outside.host] },
      progressIntervalMs: 100,
      share: { worker, pageConcurrency: 2 },
    });
  }

  /** Two workers on two connections to one new database; the first queues the crawl and leads it. */
  async function crawlWithTwo(
    over: Partial<TargetConfig> = {},
  ): Promise<{ rec: CrawlRecord; store: ServiceStore; both: CrawlRunner[] }> {
    traffic = newTraffic();
    const { store, reopen } = await kit.fresh({ token: PROJECT });
    const other = await reopen();
    const lead = runner(store, 'w1', over);
    const joiner = runner(other, 'w2', over);
    const queued = await lead.enqueue({ mode: 'full' }, 'request');
    lead.serveQueue(50);
    await until('the lead to start the crawl', () => lead.isRunning(queued.id), 10_000);
    joiner.serveQueue(50);
    const rec = await lead.wait(queued.id);
    await until('the joiner to leave the crawl', () => !joiner.isRunning(queued.id), 10_000);
    await Promise.all([lead.stopAll(), joiner.stopAll()]);
    return { rec, store, both: [lead, joiner] };
  }

  it('crawls every page once between them, holds the concurrency across both, and ends once with the sum of their work', async () => {
    const { rec, store } = await crawlWithTwo();
    expect(rec.status).toBe('completed');
    // 40 pages, and /hidden, which only /old's redirect leads to: stored once, by the worker that followed it.
    expect(rec.stats.pages).toBe(PAGES + 1);
    const twice = [...traffic.gets].filter(([, n]) => n > 1);
    expect(twice).toEqual([]);
    expect(traffic.gets.size).toBe(PAGES + 4); // and /old, /hidden, /moved, /missing
    // Both fetched pages: the second one joined.
    expect(traffic.byWorker.get('w1')).toBeGreaterThan(0);
    expect(traffic.byWorker.get('w2')).toBeGreaterThan(0);
    // Each worker may have 2 pages in flight; the target allows 3 at once, across both.
    expect(traffic.maxInFlight).toBeLessThanOrEqual(3);
    expect(traffic.maxInFlight).toBeGreaterThanOrEqual(2);
    // Every link has its outcome once: the broken ones in the report, the outside ones checked once.
    expect(outside.hitCount('/ok') + outside.hitCount('/gone')).toBeLessThanOrEqual(4); // HEAD, and GET where HEAD is refused
    expect(outside.log.filter((l) => l.endsWith('/gone') && l.startsWith('HEAD'))).toHaveLength(1);
    const report = await buildLinkReport(store.sql, PROJECT, [targetFor('w1')], { limit: 100 });
    const broken = [...new Set(report.notFound.pages.flatMap((p) => p.links.map((l) => l.url)))].sort();
    expect(broken).toEqual([`${outside.origin}/gone`, `${site.origin}/missing`].sort());
    expect(report.redirect.pages.flatMap((p) => p.links.map((l) => l.url)).sort()).toEqual(
      [`${site.origin}/moved`, `${site.origin}/old`].sort(),
    );
    // The stats of the record add up both workers' share.
    expect(rec.stats.links).toBeGreaterThanOrEqual(PAGES + 3);
    // The shared state is gone with the crawl.
    for (const table of [
      'frontier',
      'frontier_crawls',
      'frontier_targets',
      'frontier_workers',
      'host_slots',
      'host_pace',
    ]) {
      expect(await store.sql.get(`SELECT count(*) AS n FROM ${table}`)).toEqual({ n: 0 });
    }
  });

  it('hands out max_pages pages of a target among all workers, and the rest are unknown', async () => {
    const { rec, store } = await crawlWithTwo({ max_pages: 10 });
    expect(rec.status).toBe('completed');
    expect(rec.stats.pages).toBe(10);
    expect(rec.stats.targets?.[site.host]).toMatchObject({ pages: 10, cutByMaxPages: true });
    const pageGets = [...traffic.gets.keys()].filter((p) => p === '/' || p.startsWith('/p/'));
    expect(pageGets.length).toBe(10);
    const unknown = await store.sql.all<{ url: string }>(
      `SELECT url FROM link_outcomes WHERE reason = 'unknown' AND message LIKE 'not fetched: max_pages (10)%'`,
    );
    expect(unknown.length).toBeGreaterThan(0);
    // A page not fetched is never both fetched and unknown.
    for (const { url } of unknown) expect(traffic.gets.has(new URL(url).pathname)).toBe(false);
  });

  it('a crawl delay spaces the requests of both workers together, not each worker alone', async () => {
    const { rec } = await crawlWithTwo({ crawl_delay_ms: 40, max_pages: 15 });
    expect(rec.status).toBe('completed');
    const starts = traffic.log.map((l) => l.at).sort((a, b) => a - b);
    expect(new Set(traffic.log.map((l) => l.worker))).toEqual(new Set(['w1', 'w2']));
    // Each start is reserved 40 ms after the one before, whichever worker sends it. The site sees arrivals, which a
    // busy event loop may delay by some ms (one late arrival shortens one gap and lengthens the next), so the rule is
    // read over the whole crawl: the requests span at least 35 ms per gap, and half of the gaps are at least 30 ms (36
    // seen on a loaded machine).
    // Each worker spacing only its own requests would span about 20 ms per gap, with a median gap near 20 or 0.
    const gaps = starts
      .slice(1)
      .map((t, i) => t - starts[i]!)
      .sort((a, b) => a - b);
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(35 * gaps.length);
    expect(gaps[Math.floor(gaps.length / 2)]).toBeGreaterThanOrEqual(30);
  });

  it('a lead that finds another process owning its crawl (it took the lead over) leaves it: nothing closed or ended', async () => {
    traffic = newTraffic();
    const { store } = await kit.fresh({ token: PROJECT });
    const said: string[] = [];
    const logger = createLogger('info', { write: (line) => void said.push((JSON.parse(line) as { msg: string }).msg) });
    const lead = new CrawlRunner({ ...runner(store, 'w1').opts, heartbeatMs: 50, logger });
    const queued = await lead.enqueue({ mode: 'full' }, 'request');
    lead.serveQueue(50);
    try {
      await until('the lead to fetch pages', () => (traffic.byWorker.get('w1') ?? 0) >= 3, 10_000);
      // What takeOverCrawl does in the process that takes the lead over.
      await store.sql.run(`UPDATE crawls SET owner_instance = 'another-process' WHERE id = ?`, [queued.id]);
      await until('the old lead to leave the crawl', () => said.includes(STOP_REASONS.takenOver), 10_000);
      expect(await store.sql.get('SELECT status, finished_at FROM crawls WHERE id = ?', [queued.id])).toEqual({
        status: 'running',
        finished_at: null,
      });
      // The frontier stays open for the new lead (this process may join it again, as any worker).
      expect(await store.sql.get('SELECT finished_at FROM frontier_crawls WHERE crawl_id = ?', [queued.id])).toEqual({
        finished_at: null,
      });
      expect(said).not.toContain('crawl ended');
    } finally {
      await lead.stopAll();
    }
    // Stopped, this process starts nothing more (a join under way when it stopped included).
    const before = traffic.log.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(traffic.log.length).toBe(before);
  });

  it('a lead and a promoted lead whose crawl another process has ended meanwhile leave its record as that one wrote it', async () => {
    traffic = newTraffic();
    const { store, reopen } = await kit.fresh({ token: PROJECT });
    const other = await reopen();
    const said: string[] = [];
    const logger = createLogger('info', { write: (line) => void said.push((JSON.parse(line) as { msg: string }).msg) });
    const lead = new CrawlRunner({ ...runner(store, 'w1').opts, heartbeatMs: 50, logger });
    const joiner = new CrawlRunner({ ...runner(other, 'w2').opts, heartbeatMs: 50, logger });
    const queued = await lead.enqueue({ mode: 'full' }, 'request');
    lead.serveQueue(50);
    try {
      await until('the lead to start the crawl', () => lead.isRunning(queued.id), 10_000);
      joiner.serveQueue(50);
      await until('the joiner to join and fetch', () => (traffic.byWorker.get('w2') ?? 0) >= 2, 10_000);
      // The joiner takes the lead over (as when the lead went silent): both now lead it.
      expect(await joiner.takeOverLeaderless(Date.now() + 60_000)).toEqual([queued.id]);
      // Another process ends the crawl (a sweep that found it dead, or a third lead that finished it).
      const ended = { status: 'completed', finished_at: '2026-11-25T00:00:00.000Z', error: null };
      await store.sql.run(`UPDATE crawls SET status = ?, finished_at = ?, error = ? WHERE id = ?`, [
        ended.status,
        ended.finished_at,
        ended.error,
        queued.id,
      ]);
      await until('both to leave the crawl', () => !lead.isRunning(queued.id) && !joiner.isRunning(queued.id), 10_000);
      expect(await store.sql.get('SELECT status, finished_at, error FROM crawls WHERE id = ?', [queued.id])).toEqual(
        ended,
      );
      expect(said.filter((m) => /its record is left as that one wrote it/.test(m))).toHaveLength(2);
      expect(said).not.toContain('crawl ended');
    } finally {
      await Promise.all([lead.stopAll(), joiner.stopAll()]);
    }
  });

  it('a 429 with Retry-After pauses every worker, not only the one that got it', async () => {
    limitedOnce = '/p/5';
    const { rec } = await crawlWithTwo();
    expect(rec.status).toBe('completed');
    expect(limitedOnce).toBeNull();
    const hit = traffic.log.find((l) => l.path === '/p/5')!;
    // Retry-After: 1 s. The other worker hears of it from the database with its next read of the host's state (every
    // 0.2 s; in a whole run on a loaded machine one request still came after 0.45 s): from 0.65 s on nobody asks
    // until the pause is over. Without the shared pause, pages of 15 ms would be asked all through the window.
    const during = traffic.log.filter((l) => l.at > hit.at + 650 && l.at < hit.at + 900);
    expect(during.map((l) => ({ ...l, after: l.at - hit.at, by: hit.worker }))).toEqual([]);
    expect(traffic.gets.get('/p/5')).toBe(2);
  });
});
