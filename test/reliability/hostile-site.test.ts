// Hostile sites: each crawl ends, memory stays bounded, the report is right and the service keeps answering.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../src/backend/embedded.js';
import { Store } from '../../src/store/sqlite/store.js';
import { parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import { startFaultSite, type FaultSite } from '../support/fault-site.js';

let site: FaultSite;

beforeAll(async () => {
  site = await startFaultSite();
});
afterAll(async () => {
  await site.close();
});

function engine(target: Record<string, unknown>) {
  const config = parseConfig({
    project: { public_token: 'fault001:eu-north-1' },
    data_dir: mkdtempSync(join(tmpdir(), 'svc-fault-')),
    targets: [
      { host: site.host, scheme: 'http', track_links: 'all', request_timeout_ms: 1000, concurrency: 4, ...target },
    ],
  });
  const store = new Store(join(config.data_dir, 'svc.db'));
  const backend = new EmbeddedBackend({ config, store, logger: silentLogger });
  return { store, backend };
}

/** Runs one crawl to its end while sampling this process's RSS; returns the record and the RSS growth in MB. */
async function crawlMeasured(backend: EmbeddedBackend, mode: 'full' | 'partial' = 'full') {
  const before = process.memoryUsage().rss;
  let peak = before;
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const started = await backend.startCrawl({ mode });
    const record = await backend.waitForCrawl(started.id);
    return { record, growthMb: (peak - before) / 1024 / 1024 };
  } finally {
    clearInterval(t);
  }
}

function outcome(store: Store, path: string) {
  return store.db
    .prepare('SELECT http_status, reason, message, redirects_to FROM link_outcomes WHERE url = ?')
    .get(site.url(path)) as
    | { http_status: number; reason: string; message: string; redirects_to: string | null }
    | undefined;
}

describe('a crawl of a hostile site', () => {
  let run: Awaited<ReturnType<typeof crawlMeasured>>;
  let env: ReturnType<typeof engine>;

  beforeAll(async () => {
    env = engine({ max_pages: 30, use_sitemap: false, walk_links: true });
    run = await crawlMeasured(env.backend);
  }, 60_000);
  afterAll(async () => {
    await env.backend.close();
    env.store.close();
  });

  it('ends, with the target cut by max_pages and memory bounded', () => {
    expect(run.record.status).toBe('completed');
    expect(run.record.stats.targets?.[site.host]?.cutByMaxPages).toBe(true);
    // A 50 MB page, an endless body and a 200 MB gzip bomb went through: none may be held whole.
    expect(run.growthMb).toBeLessThan(200);
  });

  it('reports timeouts, resets, redirect loops and over-long chains as failures, not hangs', () => {
    for (const path of ['/slow-headers', '/reset', '/loop/a', '/chain/30']) {
      expect(outcome(env.store, path), path).toMatchObject({ reason: 'server_error' });
    }
    expect(outcome(env.store, '/slow-headers')!.http_status).toBe(0);
    expect(['server_error', 'ok']).toContain(outcome(env.store, '/slow-body')?.reason);
  });

  it('cuts huge, endless and compressed-bomb bodies at the cap instead of failing the crawl', () => {
    for (const path of ['/huge', '/endless', '/gzip-bomb']) expect(outcome(env.store, path), path).toBeDefined();
    expect(site.hits.get('/endless')).toBe(1);
  });

  it('backs off on 429 storms and reports no page broken for them', () => {
    expect(outcome(env.store, '/storm-retry-after')?.reason).toBe('ok');
    expect(outcome(env.store, '/storm-plain')?.reason).toBe('ok');
    expect(site.hits.get('/storm-retry-after')).toBeGreaterThanOrEqual(4);
  });

  it('lists what the infinite URL space left unfetched as unknown', async () => {
    const unknown = env.store.db
      .prepare(`SELECT count(*) n FROM link_outcomes WHERE reason = 'unknown' AND url LIKE ?`)
      .get(`${site.url('/calendar/')}%`) as { n: number };
    expect(unknown.n).toBeGreaterThan(0);
    const report = await env.backend.linkReport({ limit: 1000 });
    expect(report.unknown.count).toBeGreaterThan(0);
    expect(report.serverError.pages.flatMap((p) => p.links.map((l) => l.url))).toContain(site.url('/loop/a'));
  });

  it('indexes invalid UTF-8 and Latin-1 pages readably, and keeps answering searches', async () => {
    const broken = await env.backend.search('uniquebrokenword', {});
    expect(broken.hits.map((h) => h.url)).toContain(site.url('/bad-utf8'));
    const latin = await env.backend.search('smorgasbord', {});
    expect(latin.hits.map((h) => h.url)).toContain(site.url('/latin1'));
    expect(latin.hits[0]!.title).toBe('Latin page');
  });
});

describe('hostile robots.txt and sitemaps', () => {
  for (const robots of ['html', 'huge', '500'] as const) {
    it(`robots.txt that is ${robots}: the crawl still ends`, async () => {
      site.mode.robots = robots;
      site.mode.sitemap = 'none';
      const env = engine({ max_pages: 5, use_sitemap: true });
      try {
        const { record, growthMb } = await crawlMeasured(env.backend);
        expect(record.status).toBe('completed');
        expect(record.stats.pages).toBeGreaterThan(0);
        expect(growthMb).toBeLessThan(200);
      } finally {
        site.mode.robots = 'normal';
        await env.backend.close();
        env.store.close();
      }
    }, 60_000);
  }

  for (const sitemap of ['huge', 'malformed'] as const) {
    it(`a ${sitemap} sitemap: the crawl ends with bounded memory`, async () => {
      site.mode.sitemap = sitemap;
      // A 60,000-URL sitemap takes a while to stream and parse on a busy 2-core machine.
      const env = engine({
        max_pages: 20,
        use_sitemap: true,
        walk_links: false,
        request_timeout_ms: 10_000,
        start_paths: ['/ok'],
      });
      try {
        const { record, growthMb } = await crawlMeasured(env.backend);
        expect(record.status).toBe('completed');
        expect(record.stats.pages).toBeGreaterThan(0);
        expect(record.stats.pages).toBeLessThanOrEqual(20);
        expect(growthMb).toBeLessThan(200);
        if (sitemap === 'huge') {
          // The pages came from the sitemap (capped), not from walking.
          const fromSitemap = env.store.db
            .prepare(`SELECT count(*) n FROM pages WHERE url LIKE ?`)
            .get(`${site.url('/calendar/s-')}%`) as { n: number };
          expect(fromSitemap.n).toBeGreaterThan(0);
        }
      } finally {
        site.mode.sitemap = 'none';
        await env.backend.close();
        env.store.close();
      }
    }, 60_000);
  }
});
