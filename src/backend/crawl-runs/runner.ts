// Runs crawls of one project in the background, one at a time: validates a request, creates the record
// (queued), answers at once, then moves it through running to completed | stopped | failed with live stats. Crawls
// of schedules and live update wait in the database's queue until a serving process claims them (serveQueue).
// This file keeps what is per process: which crawls run here, who hears of them, and when to look at the queue.
import { BackendError } from '../../model/errors.js';
import type { SharedCrawl, SharedPlan } from '../../model/shared-crawl.js';
import type { CrawlRecord, CrawlRequest, CrawlTrigger } from '../../model/types.js';
import {
  activeCrawl,
  createCrawl,
  getCrawl,
  leaderlessCrawls,
  stopWaitingCrawl,
  takeOverCrawl,
} from '../../store/crawls.js';
import { workerName } from '../shared-crawl.js';
import { STOP_REASONS } from './finish.js';
import { claimNextCrawl, findJoinableCrawl, queueCrawl } from './queue.js';
import { validateCrawlRequest } from './request.js';
import {
  joinShared,
  runAfterCrawl,
  runShare,
  runToFinish,
  type ProgressListener,
  type RunOptions,
  type ShareOptions,
} from './run.js';

export interface CrawlRunnerOptions extends RunOptions {
  /** A crawl whose owner has not beaten for this long is dead (default 30 s). */
  deadAfterMs?: number;
  /** Without `share`: how long this process's claims in a crawl it shares outlive it (default SHARED_LEASE_MS). */
  leaseMs?: number;
}

interface Running {
  controller: AbortController;
  done: Promise<CrawlRecord>;
  /** A share of a shared crawl (this process joined it, or took its lead over). */
  shared?: SharedCrawl;
}

export class CrawlRunner {
  private readonly running = new Map<number, Running>();
  private readonly crawlEndedListeners = new Set<(record: CrawlRecord) => void>();
  private readonly progressListeners = new Set<ProgressListener>();
  /** Set while this process runs the queue (`svc serve`): it polls for queued crawls. */
  private queueTimer: NodeJS.Timeout | null = null;
  /** Set while runQueued looks for a crawl to claim (the timer and a crawl's end may both call it). */
  /** The claim (or join) under way, if any: stopAll waits for it, so nothing starts after it returns. */
  private claiming: Promise<void> | null = null;
  private readonly progress: ProgressListener = (id, p) => {
    for (const l of this.progressListeners) l(id, p);
  };
  /** How this process shares crawls: `svc worker`'s options, or (`svc serve`) only a name to take a lead over with. */
  private readonly share: ShareOptions;

  constructor(readonly opts: CrawlRunnerOptions) {
    this.share = opts.share ?? { worker: workerName(), leaseMs: opts.leaseMs };
  }

  /**
   * A person's crawl: validates the request, creates the record, starts the crawl in the background, answers at
   * once. A conflict while a crawl of the project runs (queued crawls nobody has claimed yet wait for it instead).
   */
  async start(req: CrawlRequest): Promise<CrawlRecord> {
    const { mode, urls } = validateCrawlRequest(req, this.opts.targets);
    const rec = await createCrawl(this.opts.store.sql, this.opts.project, mode, urls, {
      deadAfterMs: this.opts.deadAfterMs,
    });
    if (!rec) {
      const busy = await activeCrawl(this.opts.store.sql, this.opts.project);
      throw new BackendError(
        'conflict',
        `a crawl of this project is already ${busy?.status ?? 'running'}${busy ? ` (crawl ${busy.id}, ${busy.mode})` : ''}: wait for it to end`,
      );
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
    const rec = await queueCrawl(this.opts, req, trigger);
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
    this.claiming = this.claimOrJoin().finally(() => {
      this.claiming = null;
    });
    await this.claiming;
  }

  private async claimOrJoin(): Promise<void> {
    try {
      const rec = await claimNextCrawl(this.opts);
      if (!rec) {
        if (this.opts.share) await this.joinShared(this.opts.share);
        return;
      }
      this.opts.logger.info({ crawl: rec.id, mode: rec.mode, trigger: rec.trigger }, 'crawl claimed');
      this.launch(rec);
    } catch (err) {
      this.opts.logger.warn({ err }, 'claiming a queued crawl failed');
    }
  }

  /** Where every crawl this process runs starts: a person's at once, a queued one when claimed. */
  private launch(rec: CrawlRecord): void {
    const controller = new AbortController();
    // runToFinish yields before any work, so the entry is set before its end removes it.
    this.running.set(rec.id, { controller, done: this.runHere(rec, controller) });
  }

  /** Joins a running shared crawl of the project, if there is one: this worker crawls with its lead until it ends. */
  private async joinShared(share: ShareOptions): Promise<void> {
    const found = await findJoinableCrawl(this.opts);
    if (!found || this.running.has(found.rec.id)) return;
    this.startShare(found.rec, joinShared(this.opts, found.rec, found.plan, share));
  }

  private startShare(rec: CrawlRecord, shared: SharedCrawl): void {
    const controller = new AbortController();
    const done = this.shareHere(rec, shared, controller);
    this.running.set(rec.id, { controller, done, shared });
  }

  /**
   * A shared crawl whose lead has not beaten since `before` is taken over here when this process serves the queue
   * and runs no other crawl: the share it runs of it becomes the lead, or (none) it joins it as the lead. Only one
   * process wins each crawl (takeOverCrawl). The ids taken.
   */
  async takeOverLeaderless(before: number): Promise<number[]> {
    if (!this.queueTimer) return [];
    const taken: number[] = [];
    for (const { crawlId, plan } of await leaderlessCrawls(this.opts.store.sql, this.opts.project, before)) {
      const here = this.running.get(crawlId);
      if ((here && !here.shared) || (!here && this.running.size)) continue;
      if (!(await takeOverCrawl(this.opts.store.sql, crawlId, before))) continue;
      taken.push(crawlId);
      this.opts.logger.warn(
        { crawl: crawlId, worker: this.share.worker },
        'the lead of a shared crawl stopped answering: taking it over',
      );
      if (here?.shared) {
        here.shared.promote();
        continue;
      }
      const rec = await getCrawl(this.opts.store.sql, this.opts.project, crawlId);
      if (!rec) continue;
      const shared = joinShared(this.opts, rec, JSON.parse(plan) as SharedPlan, this.share);
      shared.promote();
      this.startShare(rec, shared);
    }
    return taken;
  }

  /** One crawl run here to its finish; then its listeners hear of it and the next queued crawl gets its turn. */
  private async runHere(rec: CrawlRecord, controller: AbortController): Promise<CrawlRecord> {
    let final: CrawlRecord = rec;
    try {
      // Every crawl (a person's or a queued one) is shared when this process is a worker, or on PostgreSQL: workers
      // may join it, and any live `svc serve` or `svc worker` on the store takes its lead over should this process
      // die. Elsewhere (one SQLite file, no worker) it runs alone, and fails with its process.
      const shareAs = this.opts.share || this.opts.store.dialect === 'pg' ? this.share : null;
      await runToFinish(this.opts, rec, controller, shareAs, this.progress);
    } finally {
      this.running.delete(rec.id);
      try {
        final = (await getCrawl(this.opts.store.sql, this.opts.project, rec.id)) ?? rec;
      } catch {
        final = { ...rec, status: 'failed' };
      }
      this.notifyCrawlEnded(final);
      // The next queued crawl's turn.
      if (this.queueTimer) setImmediate(() => void this.runQueued());
    }
    return final;
  }

  /** This worker's share of a shared crawl run here; the lead's process writes its finish (this one, once it took over). */
  private async shareHere(rec: CrawlRecord, shared: SharedCrawl, controller: AbortController): Promise<CrawlRecord> {
    try {
      await runShare(this.opts, rec, shared, controller, this.progress);
    } finally {
      this.running.delete(rec.id);
    }
    const final = (await getCrawl(this.opts.store.sql, this.opts.project, rec.id).catch(() => null)) ?? rec;
    if (shared.role === 'lead') this.notifyCrawlEnded(final);
    if (this.queueTimer) setImmediate(() => void this.runQueued());
    return final;
  }

  /** Resolves with the final record when crawl `id` ends (at once when it already has). */
  async wait(id: number): Promise<CrawlRecord> {
    const r = this.running.get(id);
    if (r) return r.done;
    const rec = await getCrawl(this.opts.store.sql, this.opts.project, id);
    if (!rec) throw new BackendError('not_found', `crawl ${id} not found`);
    return rec;
  }

  /** Crawls that end here (run here to their finish, or stopped here before they ran). */
  onCrawlEnded(listener: (record: CrawlRecord) => void): () => void {
    this.crawlEndedListeners.add(listener);
    return () => this.crawlEndedListeners.delete(listener);
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
      if (!(await stopWaitingCrawl(t, project, id, `stopped before it ran: ${why.replace(/^stopped: /, '')}`)))
        return false;
      await runAfterCrawl(this.opts, t, id);
      return true;
    });
    if (!stopped) return null;
    const rec = (await getCrawl(store.sql, project, id))!;
    this.opts.logger.info({ crawl: id, trigger: rec.trigger }, 'queued crawl stopped before it ran');
    this.notifyCrawlEnded(rec);
    return rec;
  }

  private notifyCrawlEnded(rec: CrawlRecord): void {
    for (const l of this.crawlEndedListeners) {
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
    // A claim or join under way may still start a crawl: it is stopped with the others.
    await this.claiming;
    const all = [...this.running.values()];
    for (const r of all) r.controller.abort(why);
    await Promise.allSettled(all.map((r) => r.done));
  }
}
