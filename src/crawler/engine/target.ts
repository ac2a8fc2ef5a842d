// One target's share of a crawl: its settings compiled once, what robots.txt and the sitemaps said, the pages it
// has seen and queued, and how far it got. The engine's parts read and update it; its own rules stay here.
import { DEFAULT_EXTERNAL_CACHE_MAX_AGE, parseDuration, type TargetConfig } from '../../model/config.js';
import { compileLinkRules, type LinkRules } from '../../model/link-rules.js';
import type { SharedClaim } from '../../model/shared-crawl.js';
import { canonicalTargetHost, targetOrigin } from '../../model/site-urls.js';
import { ALLOW_ALL, type RobotsRules } from '../robots.js';
import type { TargetResult } from '../sink.js';
import { compilePatterns, isPdfUrl, matchesAny } from '../urls.js';
import { FifoQueue } from './queue.js';
import { UrlQueue } from './url-queue.js';
import { UrlSet } from './url-set.js';

/**
 * A TLS handshake answered by a server that speaks plain HTTP fails with "wrong version number": the target most
 * likely wants `scheme: "http"` (a target given by host only is https), which the failure then says, once.
 */
export function withSchemeHint(failure: string | null, scheme: 'http' | 'https'): string | null {
  if (failure === null || scheme !== 'https' || !/WRONG_VERSION_NUMBER|wrong version number/i.test(failure))
    return failure;
  return `${failure} (the server answers plain HTTP, not TLS: set scheme: "http" on this target; a target given by host only is https)`;
}

/** A page waiting to be fetched. */
export interface QueuedPage {
  url: string;
  /** The frontier's claim it came from (a crawl shared by several workers). */
  claim?: SharedClaim;
}

export class TargetRun {
  readonly host: string;
  readonly origin: string;
  readonly denyPatterns: RegExp[];
  readonly skipPatterns: RegExp[];
  /** Stylesheets of this target are read for links (check_css; only where every link is tracked). */
  readonly css: boolean;
  /** How long an ok result of an external link found on this target's pages is reused, in ms. */
  readonly externalCacheMs: number;
  /** Pages of this target this process fetches at once. */
  readonly loops: number;
  /** remap, accept and retries, compiled. */
  readonly rules: LinkRules;
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
  /** Page URLs queued or fetched in this crawl (compact: a large site's crawl keeps every one to its end). */
  readonly seen = new UrlSet();
  /** Pages this process found alone (compact: up to half a large site waits here at once). */
  private readonly pages = new UrlQueue();
  /** Claims of a shared crawl. */
  private readonly claims = new FifoQueue<QueuedPage>();
  fetched = 0;
  stored = 0;
  /** The settings this target's pages are stored under (set with the context: it depends on every target). */
  revisitKey = '';
  active = 0;
  cut = false;
  private waiters: (() => void)[] = [];
  /** Fed by claims of a shared crawl. */
  private claimed = false;

  /** pageConcurrency: pages of a target in flight in this process, at most (default: the target's concurrency). */
  constructor(
    readonly config: TargetConfig,
    pageConcurrency = Infinity,
  ) {
    this.host = canonicalTargetHost(config.host, config.scheme);
    this.origin = targetOrigin(config.host, config.scheme);
    this.denyPatterns = compilePatterns(config.deny_patterns);
    this.skipPatterns = compilePatterns(config.skip_link_patterns);
    this.css = config.check_css && config.track_links === 'all';
    this.externalCacheMs = parseDuration(config.external_cache_max_age ?? DEFAULT_EXTERNAL_CACHE_MAX_AGE) ?? 0;
    this.loops = Math.max(1, Math.min(config.concurrency, pageConcurrency));
    this.rules = compileLinkRules(config);
  }

  /**
   * The canonical form of a URL of this target (walk_query_strings = false drops the query). `url` is as
   * normalizeUrl gives it (every caller's is: no fragment, and its query starts at the first '?'), so cutting the
   * query is enough: no URL is parsed again (this runs for every link of every page, a replayed one's too).
   */
  canon(url: string): string {
    const queryAt = this.config.walk_query_strings ? -1 : url.indexOf('?');
    return queryAt < 0 ? url : url.slice(0, queryAt);
  }

  owns(url: string): boolean {
    return url.startsWith(this.origin) && (url.length === this.origin.length || url[this.origin.length] === '/');
  }

  tracks(url: string): boolean {
    return this.config.track_links === 'all' || isPdfUrl(url);
  }

  /** Why this URL may not be fetched as a page (deny_patterns, robots.txt), or null. */
  refusal(url: string): string | null {
    if (matchesAny(url, this.denyPatterns)) return 'not crawled: matches deny_patterns';
    if (this.config.respect_robots_txt && !this.robots.isAllowed(url)) return 'not crawled: disallowed by robots.txt';
    return null;
  }

  /** How this target's share ended: unreachable when nothing of the site answered (a stop says nothing). */
  result(stopped: boolean): TargetResult {
    const failure = withSchemeHint(this.failure ?? this.robotsFailure, this.config.scheme);
    const unreachable = !stopped && !this.seedReached && failure !== null;
    return {
      host: this.host,
      pages: this.stored,
      cutByMaxPages: this.cut,
      unreachable,
      error: unreachable ? failure : null,
    };
  }

  get full(): boolean {
    return this.fetched >= this.config.max_pages;
  }

  get queued(): number {
    return this.pages.size + this.claims.size;
  }

  enqueue(url: string): void {
    this.pages.push(url);
    this.notify();
  }

  /** A claim of a shared crawl (max_pages is the frontier's to hold, not this queue's). */
  enqueueClaim(claim: SharedClaim): void {
    this.claimed = true;
    this.claims.push({ url: claim.url, claim });
  }

  next(): QueuedPage | null {
    if (this.full && !this.claimed) return null;
    const claim = this.claims.shift();
    if (claim) return claim;
    const url = this.pages.shift();
    return url === undefined ? null : { url };
  }

  /** The URLs next() hands out next, up to n of them, in that order (max_pages may cut them short), left queued. */
  upcoming(n: number): string[] {
    const room = this.claimed ? n : Math.min(n, this.config.max_pages - this.fetched);
    if (room <= 0) return [];
    const urls = this.claims.peek(room).map((item) => item.url);
    return urls.length < room ? urls.concat(this.pages.peek(room - urls.length)) : urls;
  }

  /** Queued but never fetched (max_pages, or a stop). */
  leftovers(): QueuedPage[] {
    return [...this.claims.takeAll(), ...this.pages.takeAll().map((url) => ({ url }))];
  }

  waitForWork(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
