// Runs crawls of one project in the background, one at a time: validates a request, creates the record
// (queued), answers at once, then moves it through running to completed | stopped | failed with live stats.
import { MANUAL_URLS_MAX } from '../model/limits.js';
import type { TargetConfig } from '../model/config.js';
import { createAddressPolicy, targetEndpoint } from '../crawler/address-policy.js';
import type { FetcherOptions } from '../crawler/fetch.js';
import type { Logger } from '../lib/log.js';
import { BackendError } from '../model/errors.js';
import { okCheckedSince, pageAnchors, sitemapLastmods } from '../store/pages.js';
import { CrawlWriter } from '../store/writer.js';
import { applyFullCrawlClearing } from './clearing.js';
import { checkSiteUrl } from '../model/site-urls.js';
import { activeCrawl, createCrawl, getCrawl, setCrawlStatus, updateCrawlStats } from '../store/crawls.js';
import type { Store } from '../store/store.js';
import { CRAWL_MODES, type CrawlMode, type CrawlRecord, type CrawlRequest } from '../model/types.js';
import { canonicalTargetHost } from '../model/site-urls.js';
import type { CrawlProgress } from '../model/types.js';

export interface CrawlRunnerOptions {
  store: Store;
  project: string;
  targets: TargetConfig[];
  logger: Logger;
  /**
   * Connect-time address policy, on by default: loopback, private, link-local (cloud metadata) and other
   * non-public addresses are refused — named directly, through DNS or through a redirect — unless they are a
   * target's own host:port or listed in `allow` (host:port). null turns it off (tests of the policy itself only).
   */
  addressPolicy?: { allow?: string[] } | null;
  /** Fetch-layer overrides (retry waits, redirect cap…), mostly for tests. */
  fetcher?: FetcherOptions;
  /** Worker threads for parsing and writing when the compiled scripts exist (default true). */
  threads?: boolean;
  /** How often progress listeners hear from a crawl, and its live stats reach the crawl record. */
  progressIntervalMs?: number;
}

export type ProgressListener = (crawlId: number, progress: CrawlProgress) => void;

/** The request as it came (REST body, ability input): checked here, field by field. */
export function validateCrawlRequest(req: unknown, targets: TargetConfig[]): { mode: CrawlMode; urls?: string[] } {
  if (!req || typeof req !== 'object' || Array.isArray(req)) throw new BackendError('invalid_input', 'request: must be an object with a mode');
  const { mode, urls } = req as { mode?: unknown; urls?: unknown };
  if (typeof mode !== 'string' || !CRAWL_MODES.includes(mode as CrawlMode)) {
    throw new BackendError('invalid_input', `mode: must be one of ${CRAWL_MODES.join(', ')}${mode === undefined ? ' (missing)' : ''}`);
  }
  if (!targets.length) throw new BackendError('invalid_input', 'no crawl targets are configured: add "targets" to the config file, or pass --site URL');
  if (mode !== 'manual') {
    if (urls !== undefined && urls !== null) throw new BackendError('invalid_input', 'urls: only allowed when mode is manual');
    return { mode: mode as CrawlMode };
  }
  if (urls === undefined || urls === null) throw new BackendError('invalid_input', 'urls: required when mode is manual (full URLs of pages on a configured target)');
  if (!Array.isArray(urls)) throw new BackendError('invalid_input', 'urls: must be an array of full URLs');
  if (urls.length === 0) throw new BackendError('invalid_input', 'urls: must hold at least one URL');
  if (urls.length > MANUAL_URLS_MAX) throw new BackendError('invalid_input', `urls: at most ${MANUAL_URLS_MAX} URLs per manual crawl (got ${urls.length})`);
  const problems: string[] = [];
  const out: string[] = [];
  urls.forEach((u, i) => {
    const r = checkSiteUrl(u, targets);
    if (typeof r === 'string') return void problems.push(`urls[${i}]: ${r}`);
    const target = targets.find((t) => canonicalTargetHost(t.host, t.scheme) === r.host)!;
    if (r.protocol !== `${target.scheme}:`) return void problems.push(`urls[${i}]: must be a ${target.scheme}:// URL, like its target ${target.host}`);
    r.hash = '';
    out.push(r.href);
  });
  if (problems.length) throw new BackendError('invalid_input', problems.slice(0, 10).join('; ') + (problems.length > 10 ? `; … ${problems.length - 10} more` : ''));
  return { mode: 'manual', urls: [...new Set(out)] };
}

interface Running {
  controller: AbortController;
  done: Promise<CrawlRecord>;
}

export class CrawlRunner {
  private readonly running = new Map<number, Running>();
  private readonly endedListeners = new Set<(record: CrawlRecord) => void>();
  private readonly progressListeners = new Set<ProgressListener>();

  constructor(readonly opts: CrawlRunnerOptions) {}

  /** Validates the request, creates the record, starts the crawl in the background, answers at once. */
  start(req: CrawlRequest): CrawlRecord {
    const { mode, urls } = validateCrawlRequest(req, this.opts.targets);
    const rec = createCrawl(this.opts.store, this.opts.project, mode, urls);
    if (!rec) {
      const busy = activeCrawl(this.opts.store, this.opts.project);
      throw new BackendError('conflict', `a crawl of this project is already ${busy?.status ?? 'running'}${busy ? ` (crawl ${busy.id}, ${busy.mode})` : ''}: wait for it to end`);
    }
    const controller = new AbortController();
    const done = this.execute(rec, controller.signal);
    this.running.set(rec.id, { controller, done });
    return rec;
  }

  /** Resolves with the final record when crawl `id` ends (at once when it already has). */
  async wait(id: number): Promise<CrawlRecord> {
    const r = this.running.get(id);
    if (r) return r.done;
    const rec = getCrawl(this.opts.store, this.opts.project, id);
    if (!rec) throw new BackendError('not_found', `crawl ${id} not found`);
    return rec;
  }

  onEnded(listener: (record: CrawlRecord) => void): () => void {
    this.endedListeners.add(listener);
    return () => this.endedListeners.delete(listener);
  }

  /** Live progress of crawls this runner runs (for the CLI's progress line). */
  onProgress(listener: ProgressListener): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /** Stops one crawl (status `stopped`); false when it is not running here. */
  stop(id: number): boolean {
    const r = this.running.get(id);
    if (!r) return false;
    r.controller.abort();
    return true;
  }

  /** Stops running crawls (status `stopped`) and waits for them to settle. */
  async stopAll(): Promise<void> {
    const all = [...this.running.values()];
    for (const r of all) r.controller.abort();
    await Promise.allSettled(all.map((r) => r.done));
  }

  private async execute(rec: CrawlRecord, signal: AbortSignal): Promise<CrawlRecord> {
    const { store, logger } = this.opts;
    // Let start() return the queued record before any work happens.
    await new Promise((r) => setImmediate(r));
    let final: CrawlRecord = rec;
    try {
      setCrawlStatus(store, rec.id, 'running');
      logger.info({ crawl: rec.id, mode: rec.mode }, 'crawl started');
      // The engine (undici, htmlparser2, css-select) loads with the first crawl, not with every command.
      const { runCrawl } = await import('../crawler/crawl.js');
      const result = await runCrawl({
        sink: new CrawlWriter(store, rec.id, { threaded: this.opts.threads !== false }),
        reader: {
          sitemapLastmods: (host) => sitemapLastmods(store, host),
          pageAnchors: (url) => pageAnchors(store, url),
          okCheckedSince: (url, since) => okCheckedSince(store, url, since),
        },
        threads: this.opts.threads,
        crawlId: rec.id,
        mode: rec.mode,
        targets: this.opts.targets,
        urls: rec.urls,
        logger,
        signal,
        fetcher: { ...this.opts.fetcher, addressPolicy: this.policy() },
        progressIntervalMs: this.opts.progressIntervalMs ?? 500,
        onProgress: (p) => {
          for (const l of this.progressListeners) l(rec.id, p);
        },
      });
      if (rec.mode === 'full' && !result.stopped) applyFullCrawlClearing(store, rec.id, result.targets, logger);
      updateCrawlStats(store, rec.id, result.stats);
      setCrawlStatus(store, rec.id, result.stopped ? 'stopped' : 'completed', result.stopped ? 'stopped before the end' : undefined);
      logger.info({ crawl: rec.id, mode: rec.mode, status: result.stopped ? 'stopped' : 'completed', ...result.stats }, 'crawl ended');
    } catch (err) {
      logger.error({ err, crawl: rec.id }, 'crawl failed');
      try {
        setCrawlStatus(store, rec.id, 'failed', err instanceof Error ? err.message : String(err));
      } catch {
        // the store is gone (closing): the next open marks it failed
      }
    } finally {
      this.running.delete(rec.id);
      try {
        final = getCrawl(store, this.opts.project, rec.id) ?? rec;
      } catch {
        final = { ...rec, status: 'failed' };
      }
      for (const l of this.endedListeners) {
        try {
          l(final);
        } catch (err) {
          logger.error({ err }, 'crawl-ended listener failed');
        }
      }
    }
    return final;
  }

  private policy() {
    const p = this.opts.addressPolicy === undefined ? {} : this.opts.addressPolicy;
    if (!p) return null;
    const allowed = this.opts.targets.map((t) => targetEndpoint(t.host, t.scheme));
    for (const a of p.allow ?? []) allowed.push(targetEndpoint(a, 'http'));
    return createAddressPolicy(allowed);
  }
}
