// Where each target's crawl starts: robots.txt read (its rules, its Crawl-delay), the sitemaps read, and the seeds
// chosen by mode: full (sitemap pages and/or start paths), partial (sitemap pages whose lastmod changed), manual
// (the URLs given).
import { normalizeUrl } from '../urls.js';
import { loadRobots } from '../robots.js';
import { loadSitemaps } from '../sitemap.js';
import type { CrawlContext } from './context.js';
import type { TargetRun } from './target.js';

/** The longest Crawl-delay of a robots.txt obeyed. */
const MAX_ROBOTS_DELAY_MS = 10_000;

/**
 * Reads robots.txt and (for the lead of a crawl) the sitemaps; answers the target's seeds (canonical URLs). A worker
 * that joins a shared crawl reads robots.txt only (for its own refusals): the lead has seeded the frontier.
 */
export async function prepareTarget(
  ctx: CrawlContext,
  run: TargetRun,
  role: 'lead' | 'join' = 'lead',
): Promise<string[]> {
  const { mode } = ctx.options;
  const config = run.config;
  const timeoutMs = config.request_timeout_ms;
  const needSitemaps = (mode === 'full' || mode === 'partial') && config.use_sitemap && role === 'lead';
  if (config.respect_robots_txt || needSitemaps) {
    run.robots = await loadRobots(ctx.fetcher, run.origin, { timeoutMs, signal: ctx.signal });
    if (run.robots.status === 'unavailable') {
      run.robotsFailure = `${run.origin}/robots.txt: 5xx or no answer`;
      ctx.logger.warn(
        { host: run.host },
        'robots.txt could not be read (5xx or no answer): crawling without its rules',
      );
    }
    if (config.respect_robots_txt && run.robots.crawlDelayMs) {
      const limiter = ctx.fetcher.limiter(run.host);
      limiter.delayMs = Math.max(limiter.delayMs, Math.min(run.robots.crawlDelayMs, MAX_ROBOTS_DELAY_MS));
    }
  }
  if (role === 'join') return [];
  if (needSitemaps) {
    const start = run.robots.sitemaps.length ? run.robots.sitemaps : [`${run.origin}/sitemap.xml`];
    const loaded = await loadSitemaps(ctx.fetcher, start, {
      timeoutMs,
      signal: ctx.signal,
      maxUrls: Math.max(config.max_pages * 2, 1000),
      accept: (url) => {
        const normalized = normalizeUrl(url);
        return normalized && run.owns(normalized) ? run.canon(normalized) : null;
      },
    });
    if (loaded.entries.size) run.sitemap = loaded.entries;
    if (loaded.capped) run.cut = true;
    ctx.logger.info({ host: run.host, sitemaps: loaded.read, urls: loaded.entries.size }, 'sitemaps read');
  } else if (mode === 'partial') {
    ctx.logger.warn({ host: run.host }, 'partial crawl: use_sitemap is off for this target, nothing to compare');
  }

  // Canonical URLs (sitemap entries already are: see accept above).
  const seeds: string[] = [];
  if (mode === 'full') {
    run.walk = config.walk_links ?? !run.sitemap;
    if (run.sitemap) seeds.push(...run.sitemap.keys());
    if (!run.sitemap || run.walk) {
      for (const path of config.start_paths) {
        const url = normalizeUrl(`${run.origin}${path}`);
        if (url) seeds.push(run.canon(url));
      }
    }
  } else if (mode === 'partial') {
    run.walk = false;
    if (run.sitemap) {
      seeds.push(...changedSinceStored(run.sitemap, await ctx.reader.sitemapLastmods(run.host)));
      ctx.logger.info(
        { host: run.host, changed: seeds.length, in_sitemap: run.sitemap.size },
        'partial crawl: pages whose sitemap lastmod changed',
      );
    }
  } else {
    run.walk = false;
    for (const given of ctx.options.urls ?? []) {
      const url = normalizeUrl(given);
      if (url && run.owns(url)) seeds.push(run.canon(url));
    }
  }
  return seeds;
}

/** The sitemap pages a partial crawl fetches: not stored yet, or with a lastmod other than the stored one. Pure. */
export function changedSinceStored(
  sitemap: ReadonlyMap<string, string | null>,
  stored: ReadonlyMap<string, string | null>,
): string[] {
  const changed: string[] = [];
  for (const [url, lastmod] of sitemap) {
    if (!stored.has(url)) changed.push(url);
    else if (lastmod !== null && stored.get(url) !== lastmod) changed.push(url);
  }
  return changed;
}
