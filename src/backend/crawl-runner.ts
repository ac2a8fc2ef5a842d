// Runs crawls of one project in the background, one at a time: validates a request, creates the record
// (queued), answers at once, then moves it through running to completed | stopped | failed with live stats. Crawls
// of schedules and live update wait in the database's queue until a serving process claims them (serveQueue).
import type { TargetConfig } from '../model/config.js';
import { createAddressPolicy, targetEndpoint } from '../crawler/address-policy.js';
import type { FetcherOptions } from '../crawler/fetch.js';
import type { Logger } from '../lib/log.js';
import { BackendError } from '../model/errors.js';
import { applyFullCrawlClearing } from './clearing.js';
import { checkSiteUrl } from '../model/site-urls.js';
import {
  activeCrawl,
  claimQueuedCrawl,
  crawlControl,
  createCrawl,
  enqueueCrawl,
  getCrawl,
  hasClaimableCrawl,
  setCrawlStatus,
  setWaitingCrawlRequest,
  stopWaitingCrawl,
  updateCrawlStats,
  waitingCrawl,
} from '../store/crawls.js';
import type { ServiceStore } from '../store/service-store.js';
import type { Sql } from '../store/sql.js';
import { crawlEnded, type CrawlMode, type CrawlRecord, type CrawlRequest, type CrawlStatus, type CrawlTrigger } from '../model/types.js';
import { MANUAL_URLS_MAX } from '../model/limits.js';
import type { CrawlResult } from '../crawler/engine/index.js';
import { issuesMessage } from '../lib/zod-issues.js';
import { CrawlRequestSchema } from './contract.js';
import type { CrawlProgress } from '../model/types.js';
import type { SharedCrawl, SharedPlan } from '../model/shared-crawl.js';
import { joinableCrawl } from '../store/frontier.js';
import { dropShared, sharedCrawl } from './shared-crawl.js';

export interface CrawlRunnerOptions {
  store: ServiceStore;
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
  /** A crawl whose owner has not beaten for this long is dead (default 30 s). */
  deadAfterMs?: number;
  /** How often a running crawl looks for stop requests (default 2000 ms); its heartbeat rides on every stats write. */
  heartbeatMs?: number;
  /** How often progress listeners hear from a crawl, and its live stats reach the crawl record. */
  progressIntervalMs?: number;
  /**
   * Runs inside the transaction that writes a crawl's end status (any end), on that transaction's Sql: what follows
   * from the end (problem history, webhook outbox: crawl-end.ts). When it throws, the end is still written and it is
   * rolled back alone.
   */
  recordEnd?: (sql: Sql, crawlId: number) => Promise<unknown>;
  /**
   * Set by `svc worker`: the crawls this process claims from the queue are shared (their frontier and host
   * politeness live in the database), and when it has none of its own it joins a running shared crawl of the project.
   */
  share?: { worker: string; pageConcurrency?: number; leaseMs?: number };
}

export type ProgressListener = (crawlId: number, progress: CrawlProgress) => void;

/**
 * The request as it came (REST body, ability input, CLI): the /v1 contract's schema, then every URL on a configured
 * target with its scheme. One validation for every surface, so every surface gives the same message.
 */
export function validateCrawlRequest(req: unknown, targets: readonly TargetConfig[]): { mode: CrawlMode; urls?: string[] } {
  const parsed = CrawlRequestSchema.safeParse(req);
  if (!parsed.success) throw new BackendError('invalid_input', issuesMessage(parsed.error, 'body'));
  const { mode, urls } = parsed.data;
  requireTargets(targets);
  if (!urls) return { mode };
  return { mode, urls: checkCrawlUrls(urls, targets) };
}

/** A crawl needs a target: invalid_input saying how to configure one. */
function requireTargets(targets: readonly TargetConfig[]): void {
  if (!targets.length) throw new BackendError('invalid_input', 'no crawl targets are configured: add "targets" to the config file, or pass --site URL');
}

/** Every URL on a configured target, without its fragment, deduplicated; or invalid_input naming each bad one. */
export function checkCrawlUrls(urls: readonly string[], targets: readonly TargetConfig[]): string[] {
  const problems: string[] = [];
  const out: string[] = [];
  urls.forEach((u, i) => {
    const r = checkSiteUrl(u, targets);
    if (typeof r === 'string') return void problems.push(`urls[${i}]: ${r}`);
    r.hash = '';
    out.push(r.href);
  });
  if (problems.length) throw new BackendError('invalid_input', problems.slice(0, 10).join('; ') + (problems.length > 10 ? `; … ${problems.length - 10} more` : ''));
  return [...new Set(out)];
}

/**
 * What a waiting live-update crawl becomes when more URLs change: the union of its URLs and the new ones (first
 * seen first), or a full crawl when that is more than one manual crawl may list (or it is one already).
 */
export function mergeQueuedUrls(waiting: { mode: CrawlMode; urls?: readonly string[] }, add: readonly string[], max = MANUAL_URLS_MAX): { mode: CrawlMode; urls?: string[] } {
  if (waiting.mode !== 'manual') return { mode: waiting.mode };
  const urls = [...new Set([...(waiting.urls ?? []), ...add])];
  return urls.length > max ? { mode: 'full' } : { mode: 'manual', urls };
}

/** Why a crawl was stopped, as its record's error says. */
export const STOP_REASONS = {
  requested: 'stopped: a stop was requested (svc crawl stop, or POST …/crawls/<id>/stop)',
  shutdown: 'stopped: the process running it shut down',
  interrupt: 'stopped: interrupted (Ctrl-C / SIGINT)',
  terminate: 'stopped: terminated (SIGTERM)',
  clientClosed: 'stopped: the MCP stdio client closed (the crawl runs inside `svc mcp`)',
} as const;

/** How a crawl ended: stopped by a signal; failed when every target of a full crawl was unreachable; else completed. */
export function crawlEnd(mode: CrawlMode, result: CrawlResult, signal: AbortSignal): { status: CrawlStatus; error?: string } {
  if (result.stopped) return { status: 'stopped', error: typeof signal.reason === 'string' ? signal.reason : 'stopped before the end' };
  const unreachable = result.targets.filter((t) => t.unreachable);
  const lines = unreachable.map((t) => `${t.host} unreachable: ${t.error}`).join('; ');
  if (mode === 'full' && unreachable.length && unreachable.length === result.targets.length) return { status: 'failed', error: lines };
  return { status: 'completed', ...(lines ? { error: lines } : {}) };
}

interface Running {
  controller: AbortController;
  done: Promise<CrawlRecord>;
}

export class CrawlRunner {
  private readonly running = new Map<number, Running>();
  private readonly endedListeners = new Set<(record: CrawlRecord) => void>();
  private readonly progressListeners = new Set<ProgressListener>();
  /** Set while this process runs the queue (`svc serve`): it polls for queued crawls. */
  private queueTimer: NodeJS.Timeout | null = null;
  /** Set while runQueued looks for a crawl to claim (the timer and a crawl's end may both call it). */
  private claiming = false;

  constructor(readonly opts: CrawlRunnerOptions) {}

  /**
   * A person's crawl: validates the request, creates the record, starts the crawl in the background, answers at
   * once. A conflict while a crawl of the project runs (queued crawls nobody has claimed yet wait for it instead).
   */
  async start(req: CrawlRequest): Promise<CrawlRecord> {
    const { mode, urls } = validateCrawlRequest(req, this.opts.targets);
    const rec = await createCrawl(this.opts.store.sql, this.opts.project, mode, urls, { deadAfterMs: this.opts.deadAfterMs });
    if (!rec) {
      const busy = await activeCrawl(this.opts.store.sql, this.opts.project);
      throw new BackendError('conflict', `a crawl of this project is already ${busy?.status ?? 'running'}${busy ? ` (crawl ${busy.id}, ${busy.mode})` : ''}: wait for it to end`);
    }
    this.launch(rec);
    return rec;
  }

  /**
   * A schedule's, live update's or queued request's (svc crawl --queue) crawl: queued in the database, never a
   * conflict; a serving process runs it in its turn (oldest first). Live update merges its URLs into a live-update crawl still waiting, if there is one, so a
   * burst of changes is one crawl. Answers the queued record.
   */
  async enqueue(req: CrawlRequest, trigger: CrawlTrigger): Promise<CrawlRecord> {
    const { store, project, targets } = this.opts;
    let rec: CrawlRecord;
    if (trigger === 'live_update' && req.mode === 'manual') {
      requireTargets(targets);
      const urls = checkCrawlUrls(req.urls ?? [], targets);
      if (!urls.length) throw new BackendError('invalid_input', 'urls: must list at least one URL');
      rec = await store.sql.tx(async (t) => {
        const waiting = await waitingCrawl(t, project, 'live_update');
        if (waiting) {
          const merged = mergeQueuedUrls(waiting, urls);
          if (await setWaitingCrawlRequest(t, waiting.id, merged.mode, merged.urls)) return (await getCrawl(t, project, waiting.id))!;
        }
        const fresh = mergeQueuedUrls({ mode: 'manual' }, urls);
        return enqueueCrawl(t, project, fresh.mode, fresh.urls, trigger);
      });
    } else {
      const { mode, urls } = validateCrawlRequest(req, targets);
      rec = await store.sql.tx((t) => enqueueCrawl(t, project, mode, urls, trigger));
    }
    this.opts.logger.info({ crawl: rec.id, mode: rec.mode, trigger, urls: rec.urls?.length }, 'crawl queued');
    if (this.queueTimer) setImmediate(() => void this.runQueued());
    return rec;
  }

  /**
   * Runs the project's queued crawls in this process, one at a time, oldest first: looks every `pollMs` and as soon
   * as a crawl ends. Another process on the same database may run them too; each crawl is claimed by one. A worker
   * that shares crawls looks four times a second by default: a crawl another worker leads is joined soon after it
   * starts (two reads each time, nothing written).
   */
  serveQueue(pollMs = this.opts.share ? 250 : 1000): void {
    if (this.queueTimer) return;
    this.queueTimer = setInterval(() => void this.runQueued(), pollMs);
    this.queueTimer.unref();
    setImmediate(() => void this.runQueued());
  }

  /** Claims and starts the oldest queued crawl when this process serves the queue and no crawl runs (anywhere). */
  async runQueued(): Promise<void> {
    if (!this.queueTimer || this.running.size || this.claiming) return;
    this.claiming = true;
    try {
      // A read first: the write lock only when there is something to claim (this runs every second).
      const rec = (await hasClaimableCrawl(this.opts.store.sql, this.opts.project))
        ? await claimQueuedCrawl(this.opts.store.sql, this.opts.project, { deadAfterMs: this.opts.deadAfterMs })
        : null;
      if (!rec) {
        if (this.opts.share) await this.joinShared(this.opts.share);
        return;
      }
      this.opts.logger.info({ crawl: rec.id, mode: rec.mode, trigger: rec.trigger }, 'crawl claimed');
      this.launch(rec, true);
    } catch (err) {
      this.opts.logger.warn({ err }, 'claiming a queued crawl failed');
    } finally {
      this.claiming = false;
    }
  }

  /** Where every crawl this process runs starts: a person's at once, a queued one when claimed. */
  private launch(rec: CrawlRecord, queued = false): void {
    const controller = new AbortController();
    // execute() yields before any work, so the entry is set before its end removes it.
    this.running.set(rec.id, { controller, done: this.execute(rec, controller, queued) });
  }

  /** Joins a running shared crawl of the project, if there is one: this worker crawls with its lead until it ends. */
  private async joinShared(share: NonNullable<CrawlRunnerOptions['share']>): Promise<void> {
    const { store, project } = this.opts;
    const found = await joinableCrawl(store.sql, project);
    if (!found || this.running.has(found.crawlId)) return;
    const rec = await getCrawl(store.sql, project, found.crawlId);
    if (!rec || rec.status !== 'running') return;
    const controller = new AbortController();
    const done = this.share(rec, JSON.parse(found.plan) as SharedPlan, share, controller);
    this.running.set(rec.id, { controller, done });
  }

  /** This worker's share of a shared crawl another worker leads: it ends when the frontier does. */
  private async share(rec: CrawlRecord, plan: SharedPlan, share: NonNullable<CrawlRunnerOptions['share']>, controller: AbortController): Promise<CrawlRecord> {
    const { store, logger } = this.opts;
    await new Promise((r) => setImmediate(r));
    const unwatch = this.watch(rec.id, controller);
    try {
      logger.info({ crawl: rec.id, mode: rec.mode, worker: share.worker }, 'joined a shared crawl');
      const result = await this.crawl(rec, controller.signal, sharedCrawl(store.sql, { crawlId: rec.id, worker: share.worker, role: 'join', plan, leaseMs: share.leaseMs }));
      logger.info({ crawl: rec.id, pages: result.stats.pages, links: result.stats.links, stopped: result.stopped }, 'left the shared crawl: its share done');
    } catch (err) {
      logger.warn({ err, crawl: rec.id }, 'crawling a share of a shared crawl failed: its claims go back to the others');
    } finally {
      unwatch();
      this.running.delete(rec.id);
      if (this.queueTimer) setImmediate(() => void this.runQueued());
    }
    return (await getCrawl(store.sql, this.opts.project, rec.id).catch(() => null)) ?? rec;
  }

  /** Runs the crawl engine on crawl rec (alone, or as one worker of a shared crawl). */
  private async crawl(rec: CrawlRecord, signal: AbortSignal, shared?: SharedCrawl): Promise<CrawlResult> {
    const { store, logger } = this.opts;
    // The engine (undici, htmlparser2, css-select) loads with the first crawl, not with every command.
    const { runCrawl } = await import('../crawler/engine/index.js');
    return runCrawl({
      sink: store.openCrawlWriter(rec.id, { threaded: this.opts.threads !== false }),
      reader: store.crawlReader(),
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
      shared,
      pageConcurrency: this.opts.share?.pageConcurrency,
    });
  }

  /** Resolves with the final record when crawl `id` ends (at once when it already has). */
  async wait(id: number): Promise<CrawlRecord> {
    const r = this.running.get(id);
    if (r) return r.done;
    const rec = await getCrawl(this.opts.store.sql, this.opts.project, id);
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

  /** Whether crawl `id` runs in this process. */
  isRunning(id: number): boolean {
    return this.running.has(id);
  }

  /** Stops one crawl (status `stopped`, `why` its error); false when it is not running here. */
  stop(id: number, why: string = STOP_REASONS.requested): boolean {
    const r = this.running.get(id);
    if (!r) return false;
    r.controller.abort(why);
    return true;
  }

  /**
   * Stops a queued crawl nobody has claimed: it never runs, and crawl-ended listeners hear of it as of any crawl
   * that ends here. Null when it is not such a crawl (running, claimed, ended, unknown).
   */
  async stopWaiting(id: number, why: string = STOP_REASONS.requested): Promise<CrawlRecord | null> {
    const { store, project } = this.opts;
    const stopped = await store.sql.tx(async (t) => {
      if (!(await stopWaitingCrawl(t, project, id, `stopped before it ran: ${why.replace(/^stopped: /, '')}`))) return false;
      await this.recordEnd(t, id);
      return true;
    });
    if (!stopped) return null;
    const rec = (await getCrawl(store.sql, project, id))!;
    this.opts.logger.info({ crawl: id, trigger: rec.trigger }, 'queued crawl stopped before it ran');
    this.notifyEnded(rec);
    return rec;
  }

  private notifyEnded(rec: CrawlRecord): void {
    for (const l of this.endedListeners) {
      try {
        l(rec);
      } catch (err) {
        this.opts.logger.error({ err }, 'crawl-ended listener failed');
      }
    }
  }

  /** Stops running crawls (status `stopped`) and waits for them to settle. Queued ones wait for the next server. */
  async stopAll(why: string = STOP_REASONS.shutdown): Promise<void> {
    if (this.queueTimer) clearInterval(this.queueTimer);
    this.queueTimer = null;
    const all = [...this.running.values()];
    for (const r of all) r.controller.abort(why);
    await Promise.allSettled(all.map((r) => r.done));
  }

  /**
   * While a crawl runs: its stats, written by the writer with every batch (at least every progress tick), are the
   * heartbeat. This loop only reads (a write here would wait for the writer's lock on the crawling thread): it
   * answers a stop asked for by another process, or a record another process has already marked failed.
   */
  private watch(id: number, controller: AbortController): () => void {
    const { store } = this.opts;
    const t = setInterval(() => {
      void crawlControl(store.sql, id).then(
        (c) => {
          if (c?.stopRequested) controller.abort(STOP_REASONS.requested);
          else if (c && crawlEnded(c.status)) controller.abort(`marked ${c.status} by another process`);
        },
        (err: unknown) => this.opts.logger.warn({ err, crawl: id }, 'reading the crawl record for stop requests failed'),
      );
    }, this.opts.heartbeatMs ?? 2000);
    t.unref();
    return () => clearInterval(t);
  }

  private async execute(rec: CrawlRecord, controller: AbortController, queued: boolean): Promise<CrawlRecord> {
    const { store, logger } = this.opts;
    // Let start() return the queued record before any work happens.
    await new Promise((r) => setImmediate(r));
    let final: CrawlRecord = rec;
    const { signal } = controller;
    let shared: SharedCrawl | undefined;
    const unwatch = this.watch(rec.id, controller);
    try {
      await setCrawlStatus(store.sql, rec.id, 'running');
      // A queued crawl a worker claims is shared with the project's other workers (not one that checks fragments:
      // a fragment's outcome needs every page's ids in one process).
      const share = queued && this.opts.share && !this.opts.targets.some((t) => t.check_fragments) ? this.opts.share : null;
      shared = share ? sharedCrawl(store.sql, { crawlId: rec.id, worker: share.worker, role: 'lead', leaseMs: share.leaseMs }) : undefined;
      logger.info({ crawl: rec.id, mode: rec.mode, trigger: rec.trigger, ...(share ? { shared: true, worker: share.worker } : {}) }, 'crawl started');
      const result = await this.crawl(rec, signal, shared);
      const end = crawlEnd(rec.mode, result, signal);
      // Only a target whose crawl reached its end decides what is forgotten (a stop or an unreachable site does not).
      if (rec.mode === 'full' && !result.stopped) await applyFullCrawlClearing(store.sql, rec.id, result.targets, logger);
      await updateCrawlStats(store.sql, rec.id, result.stats);
      await this.end(rec.id, end.status, end.error);
      logger.info({ crawl: rec.id, mode: rec.mode, status: end.status, error: end.error, ...result.stats }, 'crawl ended');
    } catch (err) {
      logger.error({ err, crawl: rec.id }, 'crawl failed');
      try {
        await this.end(rec.id, 'failed', err instanceof Error ? err.message : String(err));
      } catch {
        // the store is gone (closing): the next open marks it failed
      }
    } finally {
      unwatch();
      // The end is recorded: the shared frontier and host state go (a worker still sharing finds the frontier gone).
      if (shared) await dropShared(store.sql, rec.id).catch((err: unknown) => logger.warn({ err, crawl: rec.id }, 'dropping the shared frontier failed'));
      this.running.delete(rec.id);
      try {
        final = (await getCrawl(store.sql, this.opts.project, rec.id)) ?? rec;
      } catch {
        final = { ...rec, status: 'failed' };
      }
      this.notifyEnded(final);
      // The next queued crawl's turn.
      if (this.queueTimer) setImmediate(() => void this.runQueued());
    }
    return final;
  }

  /** The end status, and in the same transaction what follows from it (opts.recordEnd, in a savepoint of its own). */
  private async end(id: number, status: CrawlStatus, error?: string): Promise<void> {
    await this.opts.store.sql.tx(async (t) => {
      await setCrawlStatus(t, id, status, error);
      await this.recordEnd(t, id);
    });
  }

  /** Inside the transaction that ends crawl `id` (on its Sql): what follows from its end, in a savepoint of its own. */
  private async recordEnd(sql: Sql, id: number): Promise<void> {
    const { recordEnd, logger } = this.opts;
    if (!recordEnd) return;
    try {
      await sql.tx((s) => recordEnd(s, id));
    } catch (err) {
      logger.error({ err, crawl: id }, 'recording the end of the crawl (history, webhooks) failed; the next sweep tries again');
    }
  }

  private policy() {
    const p = this.opts.addressPolicy === undefined ? {} : this.opts.addressPolicy;
    if (!p) return null;
    const allowed = this.opts.targets.map((t) => targetEndpoint(t.host, t.scheme));
    for (const a of p.allow ?? []) allowed.push(targetEndpoint(a, 'http'));
    return createAddressPolicy(allowed);
  }
}
