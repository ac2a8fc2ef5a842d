// The crawl engine: modes full / partial / manual as the README describes them, link tracking, max_pages.
// Decisions are delegated to pure modules (urls, classify, html, robots, sitemap, page-meta); this file
// schedules fetches and hands what they found to its sink. What a full crawl clears is the backend's decision.
import type { Hash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { CrawlMode, CrawlProgress, CrawlStats, CrawlTargetStats } from '../model/types.js';
import { DEFAULT_EXTERNAL_CACHE_MAX_AGE, parseDuration, type TargetConfig } from '../model/config.js';
import type { Logger } from '../lib/log.js';
import { classify, statusText, type Classification } from './classify.js';
import { stylesheetLinks } from './css.js';
import { Fetcher, header as responseHeader, type FetcherOptions, type FetchResult } from './fetch.js';
import type { ExtractedLink } from '../model/crawl-writes.js';
import type { ExtractedPage } from './html/extractor.js';
import { HtmlSink } from './html/sink.js';
import { ParsePool } from './parse-pool.js';
import type { CrawlReader, CrawlSink, TargetResult } from './sink.js';
import { buildPageMeta } from './page-meta.js';
import { ALLOW_ALL, loadRobots, xRobotsTag, type RobotsRules } from './robots.js';
import { loadSitemaps } from './sitemap.js';
import { compilePatterns, isPdfUrl, matchesAny, normalizeUrl } from './urls.js';
import { bodyHasher, conditionalHeaders, decodeFound, encodeFound, revisitKey } from './revisit.js';
import { isBroken } from '../model/link-reasons.js';
import { canonicalTargetHost, targetOrigin } from '../model/site-urls.js';
import { type FoundLink, type PageRevisit, type PageWrite, type StoredRevisit } from '../model/crawl-writes.js';
import { CHECK_LANE, type SharedClaim, type SharedCrawl, type SharedUrl, type WorkerReport } from '../model/shared-crawl.js';
import type { HostLimits } from '../model/host-pace.js';
import { sleep } from './host-limiter.js';
import { SharedHostGate } from './shared-host-gate.js';

export interface CrawlEngineOptions {
  /** Where pages and outcomes go. The engine closes it when the crawl ends. */
  sink: CrawlSink;
  reader: CrawlReader;
  crawlId: number;
  mode: CrawlMode;
  targets: TargetConfig[];
  /** manual: the URLs to crawl, each already checked to be a full URL on a target. */
  urls?: string[];
  logger: Logger;
  signal?: AbortSignal;
  fetcher?: FetcherOptions;
  onProgress?: (p: CrawlProgress) => void;
  progressIntervalMs?: number;
  /** Link checks (HEAD/GET) in flight across all hosts. */
  linkCheckConcurrency?: number;
  /** Parse on worker threads when the compiled script exists (default true). */
  threads?: boolean;
  /**
   * A crawl several worker processes run together: the frontier, the hosts' politeness and the stats are shared
   * through it. Never with check_fragments (a fragment's outcome needs every page's ids in one process).
   */
  shared?: SharedCrawl;
  /** Pages of a target in flight in this process, at most (default: the target's concurrency). */
  pageConcurrency?: number;
}

export interface CrawlResult {
  stats: CrawlStats;
  /** The signal stopped it before the end. */
  stopped: boolean;
  /** Per target, in config order. */
  targets: TargetResult[];
}

interface QueueItem {
  url: string;
}

const MAX_ROBOTS_DELAY_MS = 10_000;

/** How long an idle worker of a shared crawl waits before asking for work again. */
const SHARED_POLL_MS = 50;
/** How often done claims are marked (their writes drained first). */
const SHARED_DONE_MS = 200;
/** How often the URLs found go into the frontier. */
const SHARED_ADD_MS = 20;
/** What a link check of a shared crawl carries in its frontier note. */
interface CheckNote {
  /** request_timeout_ms */
  t: number;
  /** The external link cache's age in ms (0: none). */
  c: number;
}

function isHtml(contentType: string | null): boolean {
  if (!contentType) return true;
  return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType);
}

function isCss(contentType: string | null): boolean {
  return /^\s*text\/css\b/i.test(contentType ?? '');
}

/** Stylesheet bytes read for links. */
const MAX_STYLESHEET_BYTES = 2 * 1024 * 1024;

/** A link with a fragment to a page of a target, decided when the crawl ends. */
interface FragmentLink {
  /** The page's canonical URL. */
  base: string;
  /** As in the URL (percent-encoded), without '#'. */
  fragment: string;
}

/** One target's share of a crawl. */
class TargetRun {
  readonly host: string;
  readonly origin: string;
  readonly deny: RegExp[];
  readonly skip: RegExp[];
  /** Stylesheets of this target are read for links (check_css; only where every link is tracked). */
  readonly css: boolean;
  /** How long an ok result of an external link found on this target's pages is reused, in ms. */
  readonly externalCacheMs: number;
  robots: RobotsRules = ALLOW_ALL;
  /** Sitemap URL → lastmod (when sitemaps were read). */
  sitemap: Map<string, string | null> | null = null;
  walk = false;
  /** The pages this target's crawl starts from (start paths, sitemap pages, manual URLs). */
  readonly seeds = new Set<string>();
  /** Some seed answered (anything below 500): the site is there. */
  seedReached = false;
  /** The first seed failure: what makes a target unreachable. */
  failure: string | null = null;
  /** robots.txt did not answer (or answered 5xx): unreachable too when no seed answered either. */
  robotsFailure: string | null = null;
  /** Page URLs queued or fetched in this crawl. */
  readonly seen = new Set<string>();
  private readonly queue: QueueItem[] = [];
  private head = 0;
  fetched = 0;
  stored = 0;
  /** The settings this target's pages are stored under (set by the engine: it depends on every target). */
  revisitKey = '';
  active = 0;
  cut = false;
  private waiters: (() => void)[] = [];
  /** Fed by claims of a shared crawl. */
  private claimed = false;

  constructor(readonly cfg: TargetConfig) {
    this.host = canonicalTargetHost(cfg.host, cfg.scheme);
    this.origin = targetOrigin(cfg.host, cfg.scheme);
    this.deny = compilePatterns(cfg.deny_patterns);
    this.skip = compilePatterns(cfg.skip_link_patterns);
    this.css = cfg.check_css && cfg.track_links === 'all';
    this.externalCacheMs = parseDuration(cfg.external_cache_max_age ?? DEFAULT_EXTERNAL_CACHE_MAX_AGE) ?? 0;
  }

  /** The canonical form of a URL of this target (walk_query_strings = false drops the query). */
  canon(url: string): string {
    return this.cfg.walk_query_strings ? url : (normalizeUrl(url, undefined, { dropQuery: true }) ?? url);
  }

  owns(url: string): boolean {
    return url.startsWith(this.origin) && (url.length === this.origin.length || url[this.origin.length] === '/');
  }

  tracks(url: string): boolean {
    return this.cfg.track_links === 'all' || isPdfUrl(url);
  }

  /** Why this URL may not be fetched as a page (deny_patterns, robots.txt), or null. */
  refusal(url: string): string | null {
    if (matchesAny(url, this.deny)) return 'not crawled: matches deny_patterns';
    if (this.cfg.respect_robots_txt && !this.robots.isAllowed(url)) return 'not crawled: disallowed by robots.txt';
    return null;
  }

  /** How this target's share ended: unreachable when nothing of the site answered (a stop says nothing). */
  result(stopped: boolean): TargetResult {
    const failure = this.failure ?? this.robotsFailure;
    const unreachable = !stopped && !this.seedReached && failure !== null;
    return { host: this.host, pages: this.stored, cutByMaxPages: this.cut, unreachable, error: unreachable ? failure : null };
  }

  get full(): boolean {
    return this.fetched >= this.cfg.max_pages;
  }

  get queued(): number {
    return this.queue.length - this.head;
  }

  enqueue(url: string): void {
    this.queue.push({ url });
    this.notify();
  }

  /** A claim of a shared crawl (max_pages is the frontier's to hold, not this queue's). */
  enqueueClaim(claim: QueueItem & { id: number }): void {
    this.claimed = true;
    this.queue.push(claim);
  }

  next(): QueueItem | null {
    if (this.head >= this.queue.length || (this.full && !this.claimed)) return null;
    const item = this.queue[this.head++]!;
    // Let the array go once it is drained, so a long crawl does not keep every URL it ever queued.
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }

  /** Queued but never fetched (max_pages, or a stop). */
  leftovers(): QueueItem[] {
    const rest = this.queue.slice(this.head);
    this.head = this.queue.length;
    return rest;
  }

  waitForWork(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }

  notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }
}

interface CheckItem {
  url: string;
  timeoutMs: number;
}

export class CrawlEngine {
  private readonly fetcher: Fetcher;
  private readonly runs: TargetRun[];
  private readonly writer: CrawlSink;
  private readonly parser: ParsePool;
  /** Link URLs whose outcome this crawl has recorded or will record (once per crawl). */
  private readonly decided = new Set<string>();
  private readonly checks: CheckItem[] = [];
  private checkHead = 0;
  private checksActive = 0;
  private readonly checkConcurrency: number;
  private checkIdle: (() => void)[] = [];
  /** Aborted by the caller's signal (a stop) or by a fatal error (e.g. the store cannot be written). */
  private readonly ac = new AbortController();
  private readonly signal: AbortSignal;
  private fatal: unknown = null;
  private readonly started = Date.now();
  private pagesDone = 0;
  private pagesStored = 0;
  private linksChecked = 0;
  private errors = 0;
  /** Stored pages kept as they were: the site answered 304, or the same body again. */
  private notModified = 0;
  private unchanged = 0;
  /** Some target checks fragments: pages keep their ids, outcomes of target URLs are remembered. */
  private readonly fragments: boolean;
  /** url#fragment → its page and fragment (check_fragments), decided when the crawl ends. */
  private readonly fragmentLinks = new Map<string, FragmentLink>();
  /** This crawl's outcome of every URL of a target (only when fragments are checked). */
  private readonly targetOutcomes = new Map<string, Classification>();
  /** URLs of targets stored as documents that are not HTML by this crawl (a fragment there is not checked). */
  private readonly notHtml = new Set<string>();
  /** A crawl run together with other workers (null: this process alone). */
  private readonly shared: SharedCrawl | null;
  /** Shared: URLs found, to add to the frontier after the page that found them. */
  private pendingAdds: SharedUrl[] = [];
  /** Shared: every flush of found URLs so far, one after the other. */
  private addChain: Promise<void> = Promise.resolve();
  /** Shared: settles when pendingAdds (as they are now) are in the frontier. */
  private addsFlushed: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | null = null;
  /** Shared: claims handled here whose writes are not yet known to be in the store. */
  private doneIds: number[] = [];
  /** Shared: the sitemap lastmod of claimed URLs (the lead read the sitemaps). */
  private readonly claimedLastmods = new Map<string, string>();
  /** Shared: the frontier has finished (or closed): nothing more to claim. */
  private frontierDone = false;
  /** Shared, lead: the other workers' last reports, added to its stats. */
  private others: WorkerReport[] = [];
  /** Shared: a claim per target (or lane) in flight, so this process asks once at a time. */
  private readonly refills = new Map<string, Promise<void>>();

  constructor(private readonly o: CrawlEngineOptions) {
    this.signal = this.ac.signal;
    if (o.signal?.aborted) this.ac.abort();
    else o.signal?.addEventListener('abort', () => this.ac.abort(), { once: true });
    // Every request in flight listens to it.
    setMaxListeners(0, this.signal);
    this.fetcher = new Fetcher(o.fetcher);
    this.runs = o.targets.map((t) => new TargetRun(t));
    this.fragments = o.targets.some((t) => t.check_fragments);
    const origins = this.runs.map((r) => [r.origin, r.cfg.walk_query_strings] as const);
    for (const r of this.runs) r.revisitKey = revisitKey(r.cfg, origins, this.fragments);
    this.writer = o.sink;
    this.parser = new ParsePool(o.threads === false ? 0 : undefined);
    this.checkConcurrency = o.linkCheckConcurrency ?? 32;
    this.shared = o.shared ?? null;
    if (this.shared && this.fragments) throw new Error('a crawl that checks fragments cannot be shared by several workers');
  }

  async run(): Promise<CrawlResult> {
    const { o } = this;
    const shared = this.shared;
    const tick = setInterval(() => {
      // Live stats reach the store through the writer (its thread, its transaction), never from here. A worker that
      // joined a shared crawl reports to the lead instead: the crawl record's stats are the lead's sum.
      if (shared?.role !== 'join') this.writer.stats(this.stats());
      this.writer.flush();
      this.emitProgress();
    }, o.progressIntervalMs ?? 500);
    try {
      for (const r of this.runs) {
        const gate = shared ? (limits: HostLimits) => new SharedHostGate(r.host, limits, shared.hosts, o.logger) : undefined;
        this.fetcher.configureHost(r.host, { concurrency: r.cfg.concurrency, delayMs: r.cfg.crawl_delay_ms, headers: r.cfg.request_headers }, gate);
      }
      const fail = (err: unknown) => {
        this.fatal ??= err;
        this.ac.abort();
      };
      if (shared) await this.runShared(shared).catch(fail);
      else await Promise.all(this.runs.map((r) => this.runTarget(r).catch(fail)));
      await this.checksDrained();
      if (this.fatal) throw this.fatal;
      const stopped = this.signal.aborted;
      if (shared) await this.endShared(shared, stopped);
      else this.recordLeftovers();
      await this.writer.drain();
      if (this.fragmentLinks.size) {
        // The pages' ids are in the store now (this crawl's and earlier ones').
        await this.decideFragments();
        await this.writer.drain();
      }
      return { stats: this.stats(), stopped, targets: this.runs.map((r) => r.result(stopped)) };
    } finally {
      clearInterval(tick);
      await Promise.all([this.fetcher.close(), this.writer.close(), this.parser.close()]);
      this.emitProgress();
    }
  }

  stats(): CrawlStats {
    const targets: Record<string, CrawlTargetStats> = {};
    const stopped = this.signal.aborted;
    for (const r of this.runs) {
      const res = r.result(stopped);
      targets[r.host] = {
        pages: r.stored,
        cutByMaxPages: r.cut,
        ...(this.o.mode === 'full' ? { walkLinks: r.walk } : {}),
        ...(res.unreachable ? { unreachable: true, error: res.error! } : {}),
      };
    }
    const own = { pages: this.pagesStored, links: this.linksChecked, errors: this.errors, notModified: this.notModified, unchanged: this.unchanged };
    // The lead of a shared crawl speaks for every worker.
    for (const w of this.others) {
      own.pages += w.pages;
      own.links += w.links;
      own.errors += w.errors;
      own.notModified += w.notModified;
      own.unchanged += w.unchanged;
      for (const [host, t] of Object.entries(w.targets)) {
        const mine = targets[host];
        if (mine) mine.pages += t.pages;
      }
    }
    return { ...own, targets };
  }

  /** This worker's share of a shared crawl. */
  private report(): WorkerReport {
    const targets: WorkerReport['targets'] = {};
    for (const r of this.runs) targets[r.host] = { pages: r.stored, seedReached: r.seedReached, failure: r.failure };
    return { pages: this.pagesStored, links: this.linksChecked, errors: this.errors, notModified: this.notModified, unchanged: this.unchanged, targets };
  }

  progress(): CrawlProgress {
    const queued = this.runs.reduce((n, r) => n + r.queued, 0) + (this.checks.length - this.checkHead);
    return {
      pagesDone: this.pagesDone,
      queued,
      errors: this.errors,
      linksChecked: this.linksChecked,
      requests: this.fetcher.requests,
      elapsedMs: Date.now() - this.started,
      stats: this.stats(),
    };
  }

  private emitProgress(): void {
    this.o.onProgress?.(this.progress());
  }

  private targetFor(url: string): TargetRun | undefined {
    for (const r of this.runs) if (r.owns(url)) return r;
    return undefined;
  }

  // ── targets ────────────────────────────────────────────────────────────────────────────────────────

  private async runTarget(r: TargetRun): Promise<void> {
    for (const s of await this.prepareTarget(r)) {
      r.seeds.add(s);
      this.offerPage(r, s, true);
    }
    const ended = await Promise.allSettled(Array.from({ length: this.loopsOf(r) }, () => this.worker(r)));
    const failed = ended.find((e) => e.status === 'rejected');
    if (failed) throw failed.reason;
    // Pages left in the queue were cut by max_pages, unless the crawl was stopped.
    if (r.queued > 0 && !this.signal.aborted) r.cut = true;
  }

  /** Pages of a target this process fetches at once. */
  private loopsOf(r: TargetRun): number {
    return Math.max(1, Math.min(r.cfg.concurrency, this.o.pageConcurrency ?? Infinity));
  }

  /** Reads robots.txt and (for the lead of a crawl) the sitemaps; answers the target's seeds (canonical URLs). */
  private async prepareTarget(r: TargetRun, role: 'lead' | 'join' = 'lead'): Promise<string[]> {
    const { o } = this;
    const cfg = r.cfg;
    const timeoutMs = cfg.request_timeout_ms;
    const needSitemaps = (o.mode === 'full' || o.mode === 'partial') && cfg.use_sitemap && role === 'lead';
    if (cfg.respect_robots_txt || needSitemaps) {
      r.robots = await loadRobots(this.fetcher, r.origin, { timeoutMs, signal: this.signal });
      if (r.robots.status === 'unavailable') {
        r.robotsFailure = `${r.origin}/robots.txt: 5xx or no answer`;
        o.logger.warn({ host: r.host }, 'robots.txt could not be read (5xx or no answer): crawling without its rules');
      }
      if (cfg.respect_robots_txt && r.robots.crawlDelayMs) {
        const limiter = this.fetcher.limiter(r.host);
        limiter.delayMs = Math.max(limiter.delayMs, Math.min(r.robots.crawlDelayMs, MAX_ROBOTS_DELAY_MS));
      }
    }
    if (role === 'join') return [];
    if (needSitemaps) {
      const start = r.robots.sitemaps.length ? r.robots.sitemaps : [`${r.origin}/sitemap.xml`];
      const loaded = await loadSitemaps(this.fetcher, start, {
        timeoutMs,
        signal: this.signal,
        maxUrls: Math.max(cfg.max_pages * 2, 1000),
        accept: (u) => {
          const n = normalizeUrl(u);
          return n && r.owns(n) ? r.canon(n) : null;
        },
      });
      if (loaded.entries.size) r.sitemap = loaded.entries;
      if (loaded.capped) r.cut = true;
      o.logger.info({ host: r.host, sitemaps: loaded.read, urls: loaded.entries.size }, 'sitemaps read');
    } else if (o.mode === 'partial') {
      o.logger.warn({ host: r.host }, 'partial crawl: use_sitemap is off for this target, nothing to compare');
    }

    // Canonical URLs (sitemap entries already are: see accept above).
    const seeds: string[] = [];
    if (o.mode === 'full') {
      r.walk = cfg.walk_links ?? !r.sitemap;
      if (r.sitemap) seeds.push(...r.sitemap.keys());
      if (!r.sitemap || r.walk) {
        for (const p of cfg.start_paths) {
          const n = normalizeUrl(`${r.origin}${p}`);
          if (n) seeds.push(r.canon(n));
        }
      }
    } else if (o.mode === 'partial') {
      r.walk = false;
      if (r.sitemap) {
        const stored = await o.reader.sitemapLastmods(r.host);
        for (const [url, lastmod] of r.sitemap) {
          if (!stored.has(url)) seeds.push(url);
          else if (lastmod !== null && stored.get(url) !== lastmod) seeds.push(url);
        }
        o.logger.info({ host: r.host, changed: seeds.length, in_sitemap: r.sitemap.size }, 'partial crawl: pages whose sitemap lastmod changed');
      }
    } else {
      r.walk = false;
      for (const u of o.urls ?? []) {
        const n = normalizeUrl(u);
        if (n && r.owns(n)) seeds.push(r.canon(n));
      }
    }
    return seeds;
  }

  /** Queues a page of target r unless it was seen, is refused, or max_pages is reached (then it is `unknown`). */
  private offerPage(r: TargetRun, url: string, seed = false): void {
    if (r.seen.has(url)) return;
    r.seen.add(url);
    const refusal = r.refusal(url);
    if (refusal) {
      // Links get their `skipped` outcome from ensureOutcome; a seed nobody links to gets it here.
      if (seed && r.tracks(url)) this.decide(url, { reason: 'skipped', httpStatus: 0, message: refusal, redirectsTo: null });
      return;
    }
    if (this.shared) {
      // Whoever adds it first to the frontier has it fetched; max_pages is the frontier's to hold.
      this.decided.add(url);
      const lastmod = seed ? (r.sitemap?.get(url) ?? null) : null;
      this.pendingAdds.push({ url, target: r.host, info: seed ? JSON.stringify({ seed: 1, lastmod }) : null });
      return;
    }
    if (r.full) {
      r.cut = true;
      if (r.tracks(url)) this.decide(url, { reason: 'unknown', httpStatus: 0, message: `not fetched: max_pages (${r.cfg.max_pages}) reached`, redirectsTo: null });
      return;
    }
    // Its page fetch records its outcome.
    this.decided.add(url);
    r.enqueue(url);
  }

  private async worker(r: TargetRun): Promise<void> {
    for (;;) {
      if (this.signal.aborted) {
        r.notify();
        return;
      }
      const item = r.next();
      if (!item) {
        if (r.active === 0) {
          r.notify();
          return;
        }
        await r.waitForWork();
        continue;
      }
      r.active++;
      r.fetched++;
      try {
        await this.crawlPage(r, item.url);
        await this.writer.settle();
      } catch (err) {
        // Only a failure of the crawl itself lands here (a page's own problems are outcomes): stop everything.
        this.fatal ??= err;
        this.ac.abort();
        throw err;
      } finally {
        r.active--;
        this.pagesDone++;
        r.notify();
      }
    }
  }

  // ── a crawl shared with other workers ──────────────────────────────────────────────────────────────

  /**
   * The lead reads robots.txt and sitemaps, puts the seeds in the frontier and publishes its plan; a worker that
   * joins reads robots.txt (for its own refusals) and takes the plan. Then every worker claims pages and link checks
   * until the frontier finishes: the lead finishes it once nothing is pending or claimed by anyone.
   */
  private async runShared(shared: SharedCrawl): Promise<void> {
    if (shared.role === 'lead') {
      await shared.open([...this.runs.map((r) => ({ target: r.host, maxPages: r.cfg.max_pages })), { target: CHECK_LANE, maxPages: 2 ** 31 - 1 }]);
      const seeds = await Promise.all(this.runs.map((r) => this.prepareTarget(r, 'lead')));
      this.runs.forEach((r, i) => {
        for (const s of seeds[i]!) {
          r.seeds.add(s);
          this.offerPage(r, s, true);
        }
      });
      await this.flushAdds();
      await shared.publish({ targets: Object.fromEntries(this.runs.map((r) => [r.host, { walk: r.walk }])) });
    } else {
      await Promise.all(this.runs.map((r) => this.prepareTarget(r, 'join')));
      for (const r of this.runs) r.walk = shared.plan?.targets[r.host]?.walk ?? false;
    }
    const beat = setInterval(() => void this.heartbeat(shared), shared.heartbeatMs);
    const marking = setInterval(() => void this.flushDone(shared).catch((err: unknown) => this.failShared(err)), SHARED_DONE_MS);
    const adding = setInterval(() => void this.flushAdds().catch((err: unknown) => this.failShared(err)), SHARED_ADD_MS);
    try {
      const loops = this.runs.flatMap((r) => Array.from({ length: this.loopsOf(r) }, () => this.sharedWorker(shared, r)));
      const ended = await Promise.allSettled([...loops, this.sharedChecks(shared)]);
      const failed = ended.find((e) => e.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      clearInterval(beat);
      clearInterval(marking);
      clearInterval(adding);
    }
    if (this.signal.aborted) {
      // Stopped: what this worker holds goes back, and nothing more is handed out.
      await shared.release().catch((err: unknown) => this.o.logger.warn({ err }, 'giving back the claims failed'));
      if (shared.role === 'lead') await shared.close();
    }
  }

  /** A page loop of a shared crawl: claims of target r, until the frontier finishes. */
  private async sharedWorker(shared: SharedCrawl, r: TargetRun): Promise<void> {
    for (;;) {
      if (this.signal.aborted || this.frontierDone) return;
      const item = r.next();
      if (!item) {
        if (!(await this.refill(shared, r))) await sleep(SHARED_POLL_MS, this.signal).catch(() => {});
        continue;
      }
      const claim = item as SharedClaim;
      // Claim the next ones while this one is fetched.
      if (r.queued < this.loopsOf(r)) void this.refill(shared, r).catch((err: unknown) => this.failShared(err));
      r.active++;
      r.fetched++;
      try {
        await this.crawlPage(r, claim.url);
        // Done once the URLs its page found are in the frontier (else the frontier could finish without them).
        this.afterAdds().then(
          () => {
            if (!this.signal.aborted) this.doneIds.push(claim.id);
          },
          (err: unknown) => this.failShared(err),
        );
        await this.writer.settle();
      } catch (err) {
        this.failShared(err);
        throw err;
      } finally {
        this.claimedLastmods.delete(claim.url);
        r.active--;
        this.pagesDone++;
      }
    }
  }

  /** The link checks of a shared crawl: claimed from its lane, as many at once as link checks may be in flight. */
  private async sharedChecks(shared: SharedCrawl): Promise<void> {
    const running = new Set<Promise<void>>();
    for (;;) {
      if (this.signal.aborted || this.frontierDone) break;
      const room = this.checkConcurrency - running.size;
      const claims = room > 0 ? await shared.claim(CHECK_LANE, Math.min(room, 16)) : [];
      if (claims === null) {
        this.frontierDone = true;
        break;
      }
      for (const c of claims) {
        const p = this.checkClaimed(c).finally(() => running.delete(p));
        running.add(p);
      }
      if (!claims.length) {
        if (running.size) await Promise.race(running);
        else {
          await this.idle(shared);
          await sleep(SHARED_POLL_MS, this.signal).catch(() => {});
        }
      }
    }
    await Promise.allSettled(running);
  }

  private async checkClaimed(c: SharedClaim): Promise<void> {
    const url = c.url.slice('check:'.length);
    const note = JSON.parse(c.info ?? '{}') as CheckNote;
    this.checksActive++;
    try {
      if (note.c > 0 && (await this.cachedOk(url, note.c))) this.linksChecked++;
      else await this.runCheck({ url, timeoutMs: note.t });
      // A link on a stored page of another target that was not walked: checked here, never found anew.
      await this.writer.settle();
      if (!this.signal.aborted) this.doneIds.push(c.id);
    } finally {
      this.checksActive--;
    }
  }

  /**
   * Fills target r's queue with claims (one claim of this process at a time per target). False when none came:
   * the frontier has nothing pending for r now (the lead then tries to finish it), or has finished.
   */
  private async refill(shared: SharedCrawl, r: TargetRun): Promise<boolean> {
    const before = r.queued;
    let pending = this.refills.get(r.host);
    if (!pending) {
      pending = (async () => {
        const claims = await shared.claim(r.host, this.loopsOf(r));
        if (claims === null) {
          this.frontierDone = true;
          return;
        }
        for (const c of claims) {
          const note = c.info ? (JSON.parse(c.info) as { seed?: number; lastmod?: string | null }) : null;
          if (note?.seed) r.seeds.add(c.url);
          if (note?.lastmod) this.claimedLastmods.set(c.url, note.lastmod);
          // Links found on its page may name it: it is this crawl's already.
          r.seen.add(c.url);
          this.decided.add(c.url);
          r.enqueueClaim(c);
        }
        if (!claims.length) await this.idle(shared);
      })().finally(() => this.refills.delete(r.host));
      this.refills.set(r.host, pending);
    }
    await pending;
    return r.queued > before || r.queued > 0;
  }

  /** Nothing to claim now: the lead tries to end the frontier (only the database knows whether anyone still works). */
  private async idle(shared: SharedCrawl): Promise<void> {
    if (shared.role !== 'lead' || this.frontierDone) return;
    await this.flushDone(shared);
    if (await shared.finish()) this.frontierDone = true;
  }

  /** Settles once the URLs found so far are in the frontier. */
  private afterAdds(): Promise<void> {
    if (!this.pendingAdds.length) return this.addChain;
    if (!this.addsFlushed) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      this.addsFlushed = { promise, resolve, reject };
    }
    return this.addsFlushed.promise;
  }

  /**
   * The URLs found since the last call go into the frontier, in one transaction however many pages found them, one
   * flush after the other. Settles when every flush so far is in.
   */
  private flushAdds(): Promise<void> {
    const shared = this.shared;
    if (!shared || !this.pendingAdds.length) return this.addChain;
    const adds = this.pendingAdds;
    const flushed = this.addsFlushed;
    this.pendingAdds = [];
    this.addsFlushed = null;
    this.addChain = this.addChain
      .then(() => shared.add(adds))
      .then(
        () => flushed?.resolve(),
        (err: unknown) => {
          flushed?.reject(err);
          throw err;
        },
      );
    return this.addChain;
  }

  /** Claims handled here are marked done once what they wrote is in the store, with the report that counts them. */
  private async flushDone(shared: SharedCrawl): Promise<void> {
    if (!this.doneIds.length) return;
    const ids = this.doneIds;
    this.doneIds = [];
    await this.writer.drain();
    await shared.done(ids, this.report());
  }

  private async heartbeat(shared: SharedCrawl): Promise<void> {
    try {
      await shared.heartbeat(this.report());
      if (shared.role === 'lead') this.others = await shared.reports();
    } catch (err) {
      this.o.logger.warn({ err }, 'the heartbeat of a shared crawl failed');
    }
  }

  private failShared(err: unknown): void {
    this.fatal ??= err;
    this.ac.abort();
  }

  /**
   * The lead, once the frontier has finished (or the crawl was stopped): the URLs max_pages cut (or the stop left)
   * get `unknown`, and every worker's share is added to its own, as if it had crawled it all.
   */
  private async endShared(shared: SharedCrawl, stopped: boolean): Promise<void> {
    // A worker that joined reported its share with every claim it marked done.
    if (shared.role !== 'lead') return;
    for (const state of stopped ? (['pending', 'cut'] as const) : (['cut'] as const)) {
      for (let after = 0; ; ) {
        const rows = await shared.leftovers(state, after);
        if (!rows.length) break;
        after = rows.at(-1)!.id;
        for (const row of rows) {
          const check = row.target === CHECK_LANE;
          const url = check ? row.url.slice('check:'.length) : row.url;
          const r = check ? undefined : this.runs.find((t) => t.host === row.target);
          if (r && !stopped) r.cut = true;
          if (!check && !r?.tracks(url)) continue;
          const why = stopped ? (check ? 'not checked: the crawl was stopped' : 'not fetched: the crawl was stopped') : `not fetched: max_pages (${r!.cfg.max_pages}) reached`;
          this.record(url, { reason: 'unknown', httpStatus: 0, message: why, redirectsTo: null });
        }
      }
    }
    this.others = [];
    for (const w of await shared.reports()) {
      this.linksChecked += w.links;
      this.errors += w.errors;
      this.notModified += w.notModified;
      this.unchanged += w.unchanged;
      for (const r of this.runs) {
        const t = w.targets[r.host];
        if (!t) continue;
        r.seedReached ||= t.seedReached;
        r.failure ??= t.failure;
      }
    }
    // Pages are counted in the store: a page a dead worker stored and another fetched again counts once.
    const stored = await shared.storedPages();
    this.pagesStored = 0;
    for (const r of this.runs) {
      r.stored = stored.get(r.host) ?? 0;
      this.pagesStored += r.stored;
    }
  }

  // ── pages ──────────────────────────────────────────────────────────────────────────────────────────

  /** What the store holds of a page of r that this crawl may reuse (stored under the same settings), or null. */
  private async revisitOf(r: TargetRun, url: string): Promise<StoredRevisit | null> {
    const stored = await this.o.reader.revisit(url);
    return stored && stored.key === r.revisitKey ? stored : null;
  }

  /** conditional: false when a stored page's links could not be replayed after a 304 (fetched again, in full). */
  private async crawlPage(r: TargetRun, url: string, conditional = true): Promise<void> {
    const cfg = r.cfg;
    // Asked for with its validators when the store holds it: a 304 keeps it as it is.
    const prior = conditional ? await this.revisitOf(r, url) : null;
    const validators = prior ? conditionalHeaders(prior) : undefined;
    // Parsed as it streams in (this thread), or collected and parsed on a parser thread (or here, once its hash
    // says it changed).
    let sink: HtmlSink | null = null;
    let body: { chunks: Buffer[]; contentType: string | null; url: string } | null = null;
    let stylesheet: { chunks: Buffer[]; url: string } | null = null;
    // The body's hash, and the stored page it would replace (the requested URL's, or the end of its redirects').
    let hash: Hash | null = null;
    let before: StoredRevisit | null = null;
    // Redirected to another page of r: the stored page it would replace is looked up once the body is in.
    let redirectedTo: string | null = null;
    const extractOpts = { contentSelector: cfg.content_selector, titleSelector: cfg.title_selector, anchors: this.fragments, css: r.css };
    const res = await this.fetcher.fetch(url, {
      timeoutMs: cfg.request_timeout_ms,
      signal: this.signal,
      headers: validators,
      onResponse: (info) => {
        if (info.status < 200 || info.status >= 300) return undefined;
        const css = r.css && isCss(info.contentType);
        if (!css && !isHtml(info.contentType)) return undefined;
        const final = normalizeUrl(info.url);
        if (!final || !r.owns(final)) return undefined;
        // Redirected to a page this crawl has already seen: no need to parse it twice.
        if (final !== url && r.seen.has(r.canon(final))) return undefined;
        if (final === url) before = prior;
        else redirectedTo = r.canon(final);
        const h = bodyHasher(info.headers);
        hash = h;
        if (css || this.parser.threaded || redirectedTo !== null || before?.bodyHash) {
          // Collected whole: a stylesheet (read up to its cap), or a page parsed later.
          const b = { chunks: [] as Buffer[], contentType: info.contentType, url: final };
          if (css) stylesheet = b;
          else body = b;
          const cap = css ? MAX_STYLESHEET_BYTES : Infinity;
          let size = 0;
          const write = (c: Buffer) => {
            if (size >= cap) return;
            size += c.length;
            h.update(c);
            b.chunks.push(c);
          };
          return { write, end: () => {} };
        }
        const html = new HtmlSink(info.contentType, { url: final, ...extractOpts });
        sink = html;
        return {
          write: (c: Buffer) => {
            h.update(c);
            html.write(c);
          },
          end: () => html.end(),
        };
      },
    });
    if (redirectedTo !== null) before = await this.revisitOf(r, redirectedTo);
    // A 304 to our own validators: the stored page stands, and so does its outcome.
    const notModified = prior !== null && validators !== undefined && res.ok && res.status === 304 && res.hops.length === 0;
    const cls = notModified ? { reason: 'ok' as const, httpStatus: prior.httpStatus, message: statusText(prior.httpStatus), redirectsTo: null } : classify(res);
    if (r.tracks(url)) this.record(url, cls);
    if (r.seeds.has(url) && !(!res.ok && res.failure === 'aborted')) {
      if (res.ok && res.status < 500) r.seedReached = true;
      else r.failure ??= `${url}: ${cls.message}`;
    }
    if (!res.ok && res.failure === 'aborted') return;
    if (notModified) {
      if (this.keepPage(r, url, url, res, prior, 'notModified')) return;
      // Its links cannot be replayed: fetch it again without validators (its outcome is recorded again, the same).
      return this.crawlPage(r, url, false);
    }

    if (!res.ok || res.status < 200 || res.status >= 300) {
      // A page that answers with a transient failure keeps its stored copy; one that is gone or moved loses it.
      if (cls.reason === 'server_error' || cls.reason === 'skipped') this.writer.touch(url);
      else if (this.o.mode !== 'full') this.writer.remove(url);
      return;
    }

    const final = normalizeUrl(res.finalUrl);
    let pageUrl = url;
    if (final && final !== url) {
      // Redirected: the original URL is no longer a page; the target of the chain may be one.
      if (this.o.mode !== 'full') this.writer.remove(url);
      const canonical = r.canon(final);
      if (!canonical || !r.owns(canonical) || r.seen.has(canonical) || r.refusal(canonical)) return;
      r.seen.add(canonical);
      // Another worker of a shared crawl may have it (or be fetching it): then it is theirs to store.
      if (this.shared && !(await this.shared.take(canonical, r.host))) return;
      this.decided.add(canonical);
      if (r.tracks(canonical)) this.record(canonical, classify({ ok: true, url: canonical, finalUrl: canonical, status: res.status, hops: [] }));
      pageUrl = canonical;
    }
    const bodyHash = (hash as Hash | null)?.digest('base64url') ?? null;
    const stored = before as StoredRevisit | null;
    // The same body (and shaping headers) as the stored page: kept as it is, neither parsed nor indexed again.
    if (bodyHash && stored?.bodyHash === bodyHash && this.keepPage(r, pageUrl, url, res, stored, 'unchanged')) return;
    const css = stylesheet as { chunks: Buffer[]; url: string } | null;
    if (css) {
      // A stylesheet: stored as a document (never searched) with the links it holds.
      const links = stylesheetLinks(Buffer.concat(css.chunks).toString('utf8'), css.url);
      this.storePage(r, pageUrl, url, res, null, bodyHash, links);
      return;
    }
    let extracted = (sink as HtmlSink | null)?.page ?? null;
    const collected = body as { chunks: Buffer[]; contentType: string | null; url: string } | null;
    let parsed = true;
    if (collected) {
      try {
        extracted = await this.parser.parse(collected.chunks, collected.contentType, { url: collected.url, ...extractOpts });
      } catch (err) {
        if (this.signal.aborted) return;
        parsed = false;
        this.o.logger.warn({ err, url: pageUrl }, 'page could not be parsed: stored without text or links');
      }
    }
    // A page that could not be parsed is never kept for what it holds: the next crawl tries again.
    this.storePage(r, pageUrl, url, res, extracted, parsed ? bodyHash : null);
  }

  /** The sitemap lastmod of a page (under its own URL, or the one it was requested as). */
  private lastmodOf(r: TargetRun, pageUrl: string, requested: string): string | null {
    return r.sitemap?.get(pageUrl) ?? r.sitemap?.get(requested) ?? this.claimedLastmods.get(requested) ?? null;
  }

  /**
   * A stored page this crawl found unchanged stays as it is: its links are walked and checked as if just found on
   * it (this crawl's outcomes and walk need them), nothing indexed is written. False when its links cannot be read.
   */
  private keepPage(r: TargetRun, pageUrl: string, requested: string, res: FetchResult, stored: StoredRevisit, kind: 'notModified' | 'unchanged'): boolean {
    const found = decodeFound(stored.found);
    if (!found) {
      this.o.logger.warn({ url: pageUrl }, 'the stored links of a page could not be read: fetching it in full');
      return false;
    }
    if (this.fragments && !found.html) this.notHtml.add(pageUrl);
    if (found.links.length) this.handleLinks(r, found.links, found.nofollow);
    // A 304 may omit validators that still hold; a 200's own are the ones to ask with next time.
    const etag = responseHeader(res.headers, 'etag') ?? (kind === 'notModified' ? stored.etag : null);
    const lastModified = responseHeader(res.headers, 'last-modified') ?? (kind === 'notModified' ? stored.lastModified : null);
    this.writer.keep({ url: pageUrl, crawlId: this.o.crawlId, sitemapLastmod: this.lastmodOf(r, pageUrl, requested), etag, lastModified });
    r.stored++;
    this.pagesStored++;
    this[kind]++;
    return true;
  }

  /** What the next crawl needs to revisit a page: its validators, body hash, settings key and found links. */
  private revisit(r: TargetRun, res: FetchResult, bodyHash: string | null, links: ExtractedLink[], nofollow: boolean, html: boolean): PageRevisit {
    return {
      etag: responseHeader(res.headers, 'etag') ?? null,
      lastModified: responseHeader(res.headers, 'last-modified') ?? null,
      bodyHash,
      key: r.revisitKey,
      found: encodeFound({ nofollow, html, links }),
    };
  }

  private storePage(r: TargetRun, pageUrl: string, requested: string, res: FetchResult, extracted: ExtractedPage | null, bodyHash: string | null, documentLinks: ExtractedLink[] = []): void {
    const cfg = r.cfg;
    const lastmod = this.lastmodOf(r, pageUrl, requested);
    if (!extracted) {
      // A document that is not HTML (PDF, image, stylesheet…): stored so it counts as seen, never in the search index.
      const meta = buildPageMeta({ url: pageUrl, host: r.host, extracted: EMPTY_PAGE, lastModified: responseHeader(res.headers, 'last-modified') ?? null, targetTags: cfg.tags });
      if (this.fragments) this.notHtml.add(pageUrl);
      // An HTML page that could not be parsed (no hash) is not revisited: the next crawl fetches and parses it again.
      const revisitable = bodyHash !== null || !isHtml(res.contentType);
      this.writer.page({
        url: pageUrl, host: r.host, httpStatus: res.ok ? res.status : 200, contentType: res.contentType, indexed: false, showInSearch: meta.showInSearch,
        title: meta.title, language: null, tags: meta.tags, superwords: [], content: '', meta, created: null, modified: meta.modified,
        sitemapLastmod: lastmod, crawlId: this.o.crawlId, links: documentLinks.length ? this.handleLinks(r, documentLinks, false) : [],
        revisit: revisitable ? this.revisit(r, res, bodyHash, documentLinks, false, false) : null,
      });
      r.stored++;
      this.pagesStored++;
      return;
    }
    const header = cfg.respect_robots_meta ? xRobotsTag(res.headers['x-robots-tag']) : { noindex: false, nofollow: false };
    const meta = cfg.respect_robots_meta ? extracted.robots : { noindex: false, nofollow: false };
    const noindex = header.noindex || meta.noindex;
    const nofollow = header.nofollow || meta.nofollow;
    const pageMeta = buildPageMeta({
      url: pageUrl,
      host: r.host,
      extracted,
      lastModified: responseHeader(res.headers, 'last-modified') ?? null,
      contentLanguage: responseHeader(res.headers, 'content-language') ?? null,
      targetTags: cfg.tags,
    });
    const links = this.handleLinks(r, extracted.links, nofollow);
    const write: PageWrite = {
      url: pageUrl,
      host: r.host,
      httpStatus: res.ok ? res.status : 200,
      contentType: res.contentType,
      indexed: !noindex,
      showInSearch: pageMeta.showInSearch,
      title: pageMeta.title,
      language: pageMeta.language,
      tags: pageMeta.tags,
      superwords: pageMeta.superwords,
      content: extracted.text,
      meta: pageMeta,
      created: pageMeta.created,
      modified: pageMeta.modified,
      sitemapLastmod: lastmod,
      crawlId: this.o.crawlId,
      links,
      anchors: extracted.anchors ?? null,
      revisit: bodyHash ? this.revisit(r, res, bodyHash, extracted.links, nofollow, true) : null,
      headings: extracted.headings,
    };
    this.writer.page(write);
    r.stored++;
    this.pagesStored++;
  }

  /** Walks (when allowed) and tracks the links of a crawled page; returns the ones to store with it. */
  private handleLinks(r: TargetRun, links: readonly ExtractedLink[], nofollow: boolean): FoundLink[] {
    const out: FoundLink[] = [];
    const stored = new Set<string>();
    for (const link of links) {
      const owner = this.targetFor(link.url);
      const url = owner ? owner.canon(link.url) : link.url;
      // skip_link_patterns: neither walked, checked nor reported.
      if (matchesAny(url, r.skip)) continue;
      const tracked = r.tracks(url);
      if (tracked) {
        // A fragment is checked on links to a target's pages; the page itself gets its outcome as any link does.
        const fragment = link.fragment && owner && r.cfg.check_fragments ? link.fragment : '';
        const key = fragment ? `${url}#${fragment}` : url;
        if (!stored.has(key)) {
          stored.add(key);
          out.push({ url: key, element: link.element, text: link.text });
        }
        if (fragment && !this.fragmentLinks.has(key)) this.fragmentLinks.set(key, { base: url, fragment });
      }
      if (owner === r && r.walk && link.walkable && !nofollow && !(link.nofollow && r.cfg.respect_robots_meta)) this.offerPage(r, url);
      // A stylesheet of a target that checks CSS is fetched for the links it holds, walking or not.
      else if (link.stylesheet && owner?.css && tracked) this.offerPage(owner, url);
      if (tracked) this.ensureOutcome(url, owner, r);
    }
    return out;
  }

  /** Makes sure a tracked link gets exactly one outcome in this crawl. */
  private ensureOutcome(url: string, owner: TargetRun | undefined, from: TargetRun): void {
    if (this.decided.has(url)) return;
    if (owner) {
      const refusal = owner.refusal(url);
      if (refusal) return this.decide(url, { reason: 'skipped', httpStatus: 0, message: refusal, redirectsTo: null });
      if (owner.seen.has(url)) return; // queued: its page fetch records it
    }
    if (this.shared) {
      // Checked by whichever worker claims it (once for the crawl), the external link cache asked there.
      this.decided.add(url);
      const note: CheckNote = { t: (owner ?? from).cfg.request_timeout_ms, c: owner ? 0 : from.externalCacheMs };
      this.pendingAdds.push({ url: `check:${url}`, target: CHECK_LANE, info: JSON.stringify(note) });
      return;
    }
    if (!owner && from.externalCacheMs > 0) {
      // An external link found ok recently: its stored outcome stands (and keeps its check time), no request. The
      // store is asked first; meanwhile the lookup counts as a check in progress, so the crawl's end waits for it.
      this.decided.add(url);
      this.checksActive++;
      void this.cachedOk(url, from.externalCacheMs)
        .then((ok) => {
          if (ok) this.linksChecked++;
          else this.checks.push({ url, timeoutMs: from.cfg.request_timeout_ms });
        })
        .finally(() => {
          this.checksActive--;
          this.pumpChecks();
          this.wakeIfChecksIdle();
        });
      return;
    }
    this.decided.add(url);
    this.checks.push({ url, timeoutMs: (owner ?? from).cfg.request_timeout_ms });
    this.pumpChecks();
  }

  /** The external link cache: the link was found ok within cacheMs (its stored outcome stands). */
  private cachedOk(url: string, cacheMs: number): Promise<boolean> {
    const since = new Date(Date.now() - cacheMs).toISOString();
    return this.o.reader.okCheckedSince(url, since).catch((err: unknown) => {
      this.o.logger.warn({ err, url }, 'reading the external link cache failed: checking the link');
      return false;
    });
  }

  private decide(url: string, c: Classification): void {
    if (this.decided.has(url)) return;
    this.decided.add(url);
    this.record(url, c);
  }

  private record(url: string, c: Classification): void {
    // Once the crawl is stopped, `unknown` only fills gaps: it must not hide what the last complete crawl found.
    const onlyIfNew = c.reason === 'unknown' && this.signal.aborted;
    this.writer.outcome({ url, httpStatus: c.httpStatus, reason: c.reason, message: c.message, redirectsTo: c.redirectsTo, blocked: c.blocked === true, crawlId: this.o.crawlId, onlyIfNew });
    if (this.fragments && this.targetFor(url)) this.targetOutcomes.set(url, c);
    if (c.reason !== 'skipped') this.linksChecked++;
    // A bot block is not breakage: it keeps its reason in the report but is not counted as broken.
    if (isBroken(c.reason) && !c.blocked) this.errors++;
  }

  // ── link checks (HEAD, GET fallback) ───────────────────────────────────────────────────────────────

  private pumpChecks(): void {
    while (this.checksActive < this.checkConcurrency && this.checkHead < this.checks.length && !this.signal.aborted) {
      const item = this.checks[this.checkHead++]!;
      if (this.checkHead > 4096 && this.checkHead * 2 > this.checks.length) {
        this.checks.splice(0, this.checkHead);
        this.checkHead = 0;
      }
      this.checksActive++;
      void this.runCheck(item).finally(() => {
        this.checksActive--;
        this.pumpChecks();
        this.wakeIfChecksIdle();
      });
    }
  }

  private wakeIfChecksIdle(): void {
    if (this.checksActive === 0 && (this.checkHead >= this.checks.length || this.signal.aborted)) {
      const w = this.checkIdle;
      this.checkIdle = [];
      for (const r of w) r();
    }
  }

  private async runCheck(item: CheckItem): Promise<void> {
    try {
      const res = await this.fetcher.check(item.url, { timeoutMs: item.timeoutMs, signal: this.signal });
      this.record(item.url, classify(res));
    } catch (err) {
      this.o.logger.error({ err, url: item.url }, 'link check failed unexpectedly');
    }
  }

  private checksDrained(): Promise<void> {
    if (this.checksActive === 0 && (this.checkHead >= this.checks.length || this.signal.aborted)) return Promise.resolve();
    return new Promise((r) => this.checkIdle.push(r));
  }

  // ── the end ────────────────────────────────────────────────────────────────────────────────────────

  /** Every url#fragment link found gets its outcome from its page's outcome and ids (read from the store, once a page). */
  private async decideFragments(): Promise<void> {
    const byPage = new Map<string, string[]>();
    for (const { base, fragment } of this.fragmentLinks.values()) {
      const list = byPage.get(base);
      if (list) list.push(fragment);
      else byPage.set(base, [fragment]);
    }
    for (const [base, fragments] of byPage) {
      const page = this.targetOutcomes.get(base);
      const notHtml = this.notHtml.has(base);
      const stored = page?.reason === 'ok' && !notHtml ? await this.o.reader.pageAnchors(base) : null;
      const anchors = stored ? new Set(stored) : null;
      for (const fragment of fragments) this.record(`${base}#${fragment}`, fragmentOutcome(page, fragment, anchors, notHtml));
    }
  }

  /** Found but never fetched (max_pages, or the crawl was stopped): `unknown`. */
  private recordLeftovers(): void {
    const stopped = this.signal.aborted;
    for (const r of this.runs) {
      const rest = r.leftovers();
      const why = stopped ? 'not fetched: the crawl was stopped' : `not fetched: max_pages (${r.cfg.max_pages}) reached`;
      for (const { url } of rest) {
        if (r.tracks(url)) this.record(url, { reason: 'unknown', httpStatus: 0, message: why, redirectsTo: null });
      }
    }
    if (stopped) {
      for (let i = this.checkHead; i < this.checks.length; i++) {
        this.record(this.checks[i]!.url, { reason: 'unknown', httpStatus: 0, message: 'not checked: the crawl was stopped', redirectsTo: null });
      }
      this.checkHead = this.checks.length;
    }
  }
}

/**
 * A link `page#fragment`: as its page when that is not ok; else ok when the page (an HTML page of a target) has an
 * element with that id or an <a name>, `not_found` (200) when it has not. Pure.
 */
export function fragmentOutcome(page: Classification | undefined, fragment: string, anchors: ReadonlySet<string> | null, notHtml: boolean): Classification {
  if (!page) return { reason: 'unknown', httpStatus: 0, message: 'fragment not checked: the page was not checked by this crawl', redirectsTo: null };
  if (page.reason !== 'ok' || notHtml) return page;
  if (!anchors) return { reason: 'unknown', httpStatus: page.httpStatus, message: 'fragment not checked: the page was not fetched by this crawl or one that checked fragments', redirectsTo: null };
  let decoded = fragment;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    // not valid percent-encoding: compared as written
  }
  // "#top" means the top of the page unless the page names something so.
  if (anchors.has(fragment) || anchors.has(decoded) || decoded.toLowerCase() === 'top') {
    return { reason: 'ok', httpStatus: page.httpStatus, message: statusText(page.httpStatus), redirectsTo: null };
  }
  return { reason: 'not_found', httpStatus: 200, message: `missing fragment #${decoded}`, redirectsTo: null };
}

const EMPTY_PAGE: ExtractedPage = { title: '', text: '', lang: null, description: null, embeddedMeta: null, links: [], robots: { noindex: false, nofollow: false }, baseUrl: '', headings: [] };

/** Runs one crawl to its end (or until the signal stops it). */
export function runCrawl(o: CrawlEngineOptions): Promise<CrawlResult> {
  return new CrawlEngine(o).run();
}
