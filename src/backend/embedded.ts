// The embedded engine: crawler + store + index + report in this process.
import type { Config } from '../model/config.js';
import type { Logger } from '../lib/log.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { BackendError } from '../model/errors.js';
import { canonicalTargetHosts } from '../model/site-urls.js';
import type { Backend } from './backend.js';
import { pollCrawl, type FollowOptions } from './follow.js';
import { CrawlRunner, type CrawlRunnerOptions } from './crawl-runs/runner.js';
import { dropShared } from './shared-crawl.js';
import { buildLinkReport } from './report/link-report.js';
import { deletePages } from './delete-pages.js';
import {
  CRAWL_DEAD_AFTER_MS,
  failDeadCrawls,
  getCrawl,
  latestEndedCrawlId,
  listCrawls,
  requestCrawlStop,
  sweepDue,
} from '../store/crawls.js';
import { readSchedule, saveSchedule, Scheduler } from './scheduler.js';
import { normalizedSet, type ScheduleInfo, ScheduleSetSchema } from '../model/schedule.js';
import { formatZodIssues } from '../lib/zod-issues.js';
import type { ServiceStore } from '../store/service-store.js';
import {
  crawlEnded,
  type CrawlRecord,
  type CrawlRequest,
  type CrawlTrigger,
  type DeletePagesResult,
  type LinkReport,
  type LinkReportQuery,
  type PageIndexState,
  type SearchParams,
  type SearchResults,
} from '../model/types.js';
import { pageIndexState } from '../store/pages.js';
import { listPages, readPage, withSections } from './page-reading.js';
import type { PageContent, PageContentQuery, PageList, PageListQuery } from './page-contract.js';
import { normalizeUrl } from '../crawler/urls.js';
import { runAfterCrawl, runPendingAfterCrawls, type AfterCrawlContext } from './after-crawl.js';
import { crawlChanges } from './history/changes.js';
import type { CrawlChanges } from '../model/history.js';
import type { WebhookDelivery } from '../model/webhooks.js';
import { listDeliveries } from '../store/webhooks.js';
import { observe } from '../model/observations.js';
import { everyDay, statsLimit, statsPeriod, type SearchStats, type SearchStatsQuery } from '../model/search-stats.js';
import { readSearchStats } from '../store/search-stats.js';
import { SearchRecorder } from './search-recorder.js';

export interface EmbeddedBackendOptions {
  config: Config;
  store: ServiceStore;
  logger: Logger;
  /** A crawl whose owner has not beaten for this long is dead (default 30 s). */
  deadAfterMs?: number;
  /** The schedules' clock (ms since the epoch); tests move it. */
  now?: () => number;
  /** How long a dead process's claims in a shared crawl stay taken (CrawlRunnerOptions.leaseMs). */
  leaseMs?: number;
  /** `svc worker`: queued crawls are shared with the other workers (CrawlRunnerOptions.share). */
  share?: CrawlRunnerOptions['share'];
  /** The scheduler's longest sleep between looks (SchedulerOptions.maxSleepMs; default SCHEDULE_REREAD_MS). */
  scheduleRereadMs?: number;
  /** How often a running crawl looks for stop requests (RunOptions.heartbeatMs; default 2 s). */
  heartbeatMs?: number;
}

export class EmbeddedBackend implements Backend {
  readonly kind = 'embedded' as const;
  readonly publicToken: string;
  private readonly runner: CrawlRunner;
  private readonly store: ServiceStore;
  private readonly config: Config;
  private sweep: NodeJS.Timeout | null = null;
  private scheduler: Scheduler | null = null;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly scheduleRereadMs: number | undefined;
  private readonly afterCrawl: AfterCrawlContext;
  /** Fails crawls whose owner went silent past the limit: every second, and before a crawl record is read. */
  private failDead: () => Promise<void> = async () => {};
  private sweeping: Promise<void> | null = null;
  /** Search analytics' recorder; null on a read-only store. */
  private readonly searches: SearchRecorder | null;

  constructor(opts: EmbeddedBackendOptions) {
    this.config = opts.config;
    this.store = opts.store;
    this.publicToken = opts.config.project.public_token;
    this.logger = opts.logger;
    this.now = opts.now ?? Date.now;
    this.scheduleRereadMs = opts.scheduleRereadMs;
    this.afterCrawl = {
      sql: opts.store.sql,
      project: this.publicToken,
      targets: opts.config.targets,
      webhooks: opts.config.webhooks,
      logger: opts.logger,
      searchStatsRetentionDays: opts.config.search_stats.retention_days,
    };
    this.searches = opts.store.readonly
      ? null
      : new SearchRecorder({
          sql: opts.store.sql,
          project: this.publicToken,
          retentionDays: opts.config.search_stats.retention_days,
          logger: opts.logger,
          now: this.now,
        });
    this.runner = new CrawlRunner({
      store: opts.store,
      project: this.publicToken,
      targets: opts.config.targets,
      logger: opts.logger,
      deadAfterMs: opts.deadAfterMs,
      leaseMs: opts.leaseMs,
      heartbeatMs: opts.heartbeatMs,
      afterCrawl: (sql, id) => runAfterCrawl(this.afterCrawl, sql, id),
      share: opts.share,
    });
    // A crawl whose owner died (another process, or this one before a restart) is failed within a few seconds of
    // its heartbeat going stale, even when nobody starts a new crawl.
    if (!opts.store.readonly) {
      const deadAfter = opts.deadAfterMs ?? CRAWL_DEAD_AFTER_MS;
      const sql = opts.store.sql;
      const sweepOnce = async () => {
        try {
          const before = Date.now() - deadAfter;
          // Right after a database outage every owner's heartbeat is stale: a live one beats again within the limit.
          const back = opts.store.answeringAgainSince?.() ?? null;
          if (back !== null && back > before) return;
          // One read says which steps have anything to do (most sweeps: none); each step reads again for itself.
          const due = await sweepDue(sql, this.publicToken, before);
          // A shared crawl whose lead died goes on with a new lead (this process, when it serves the queue).
          if (due.leaderless) await this.runner.takeOverLeaderless(before);
          // The write lock only when there is something to fail (a crawl taken over just now has beaten: not failed).
          let failed = 0;
          if (due.dead) {
            const ids = await sql.tx((t) => failDeadCrawls(t, before, this.publicToken));
            failed = ids.length;
            if (ids.length)
              opts.logger.warn({ crawls: ids }, 'crawls whose owner stopped answering were marked failed');
            // A dead lead's shared crawl nobody alive took over: its frontier and host state go with it.
            for (const id of ids) await dropShared(sql, id);
          }
          // Crawls ended without their afterCrawl yet (failed here or by another process after its owner died): history, webhooks.
          if (due.pendingAfter || failed) await runPendingAfterCrawls(this.afterCrawl);
        } catch (err) {
          opts.logger.warn({ err }, 'dead-crawl sweep failed');
        }
      };
      // One sweep at a time: a caller that comes while one runs waits for it (its afterCrawls done) instead of racing it.
      this.failDead = () => (this.sweeping ??= sweepOnce().finally(() => (this.sweeping = null)));
      void this.failDead();
      this.sweep = setInterval(() => void this.failDead(), Math.min(1000, deadAfter / 3));
      this.sweep.unref();
    }
  }

  async startCrawl(req: CrawlRequest): Promise<CrawlRecord> {
    // A dead crawl is failed and its end recorded before the new crawl writes anything, so the history gives the
    // new crawl's findings to the new crawl.
    await this.failDead();
    return this.runner.start(req);
  }

  async queueCrawl(req: CrawlRequest, trigger: CrawlTrigger): Promise<CrawlRecord> {
    return this.runner.enqueue(req, trigger);
  }

  async schedule(): Promise<ScheduleInfo> {
    return readSchedule(this.store.sql, this.publicToken, this.config.schedule, this.now());
  }

  async setSchedule(schedule: unknown): Promise<ScheduleInfo> {
    let set = null;
    if (schedule !== null) {
      const parsed = ScheduleSetSchema.safeParse(schedule);
      if (!parsed.success) throw new BackendError('invalid_input', formatZodIssues(parsed.error).join('; '));
      set = normalizedSet(parsed.data);
      if ((set.full || set.partial) && !this.config.targets.length)
        throw new BackendError(
          'conflict',
          'this project has no crawl targets (targets in the config), so a schedule would crawl nothing: nothing was stored',
        );
    }
    const info = await saveSchedule(this.store.sql, this.publicToken, this.config.schedule, set, this.now());
    this.logger.info(
      { schedule: set, source: info.source },
      set ? 'crawl schedule stored' : 'stored crawl schedule cleared',
    );
    this.scheduler?.poke();
    return info;
  }

  /**
   * What a serving process does unattended: runs queued crawls in their turn, and the schedules in force (stored or
   * the config's, read again at every look). Only `svc serve` and `svc worker` call it; any other command leaves
   * queued crawls for the server.
   */
  runUnattended(opts: { queuePollMs?: number } = {}): void {
    if (this.store.readonly) return;
    this.runner.serveQueue(opts.queuePollMs);
    const { full, partial } = this.config.schedule;
    if (!this.config.targets.length) {
      if (full || partial) this.logger.warn('schedule is ignored: no crawl targets are configured');
      return;
    }
    this.scheduler = new Scheduler({
      sql: this.store.sql,
      project: this.publicToken,
      schedule: this.config.schedule,
      logger: this.logger,
      now: this.now,
      onQueued: () => void this.runner.runQueued(),
      maxSleepMs: this.scheduleRereadMs,
    });
    this.scheduler.start();
    // The config's; a stored schedule, when there is one, is in force instead (the scheduler logs it when it changes).
    this.logger.info({ schedule: { full: full ?? null, partial: partial ?? null } }, 'crawl schedules running');
  }

  async getCrawl(id: number): Promise<CrawlRecord | null> {
    // A sweep under way may be failing this crawl: its record is read once the end is recorded.
    if (this.sweeping) await this.sweeping;
    const rec = await getCrawl(this.store.sql, this.publicToken, id);
    if (!rec || crawlEnded(rec.status)) return rec;
    // Nobody is shown as running a crawl whose owner is dead, not even for the second until the next sweep.
    await this.failDead();
    return getCrawl(this.store.sql, this.publicToken, id);
  }

  async waitForCrawl(id: number, opts: FollowOptions = {}): Promise<CrawlRecord> {
    if (!this.runner.isRunning(id)) return pollCrawl(id, (i) => this.getCrawl(i), opts, 500);
    const off = opts.onProgress ? this.runner.onProgress((crawl, p) => crawl === id && opts.onProgress!(p)) : () => {};
    const timers = new AbortController();
    try {
      const ends: Promise<CrawlRecord | null>[] = [this.runner.wait(id)];
      if (opts.timeoutMs !== undefined)
        ends.push(sleep(opts.timeoutMs, null, { signal: timers.signal }).catch(() => null));
      if (opts.signal)
        ends.push(new Promise((r) => opts.signal!.addEventListener('abort', () => r(null), { once: true })));
      return (await Promise.race(ends)) ?? (await this.getCrawl(id))!;
    } finally {
      off();
      timers.abort();
    }
  }

  async stopCrawl(id: number, why?: string): Promise<CrawlRecord> {
    const rec = await this.getCrawl(id);
    if (!rec) throw new BackendError('not_found', `crawl ${id} not found`);
    // Here: at once. Queued and claimed by nobody: stopped now, it never runs. In another process on this database:
    // its owner sees the request within a heartbeat.
    if (this.runner.stop(id, why)) return rec;
    const stopped = await this.runner.stopWaiting(id, why);
    if (stopped) return stopped;
    if (!(await requestCrawlStop(this.store.sql, this.publicToken, id)))
      throw new BackendError('conflict', `crawl ${id} is not running (${rec.status})`);
    return rec;
  }

  async listCrawls(opts: { limit: number; offset: number }): Promise<CrawlRecord[]> {
    await this.failDead();
    return listCrawls(this.store.sql, this.publicToken, opts.limit, opts.offset);
  }

  async reportVersion(): Promise<string | null> {
    return latestEndedCrawlId(this.store.sql, this.publicToken);
  }

  async linkReport(query: LinkReportQuery): Promise<LinkReport> {
    return buildLinkReport(this.store.sql, this.publicToken, this.config.targets, query);
  }

  async crawlChanges(id: number): Promise<CrawlChanges> {
    // A crawl another process failed may not be recorded in the history yet.
    if (!this.store.readonly) await runPendingAfterCrawls(this.afterCrawl);
    return crawlChanges(this.store.sql, this.publicToken, this.config.targets, id);
  }

  async listWebhookDeliveries(opts: { limit: number; offset: number }): Promise<WebhookDelivery[]> {
    return listDeliveries(this.store.sql, this.publicToken, opts.limit, opts.offset);
  }

  async search(terms: string, params: SearchParams): Promise<SearchResults> {
    // Every surface's search comes through here: its latency is observed once, for /metrics.
    const started = performance.now();
    let ok = false;
    try {
      const results = await this.store.searchPages(terms, params, { hosts: canonicalTargetHosts(this.config.targets) });
      ok = true;
      const answered = await withSections(this.store.sql, terms, results);
      // Search analytics: once per search answered, not again for each further page of its hits.
      if (!params?.from) this.searches?.record(terms, results.total);
      return answered;
    } finally {
      observe('searchAnswered', { project: this.publicToken, seconds: (performance.now() - started) / 1000, ok });
    }
  }

  async searchStats(query: SearchStatsQuery): Promise<SearchStats> {
    const now = this.now();
    const retention = this.config.search_stats.retention_days;
    const since = statsPeriod(query.since, now, retention);
    const limit = statsLimit(query.limit);
    // The searches of the last second are counted too.
    await this.searches?.flush();
    const read = await readSearchStats(this.store.sql, this.publicToken, since, limit);
    return { since, retention_days: retention, ...read, days: everyDay(since, now, read.days), limit };
  }

  async getPage(query: PageContentQuery): Promise<PageContent> {
    return readPage(this.store.sql, this.config.targets, query);
  }

  async listPages(query: PageListQuery): Promise<PageList> {
    return listPages(this.store.sql, this.publicToken, this.config.targets, query);
  }

  async deletePages(urls: string[]): Promise<DeletePagesResult> {
    return deletePages(this.store.sql, this.config.targets, urls);
  }

  async pageIndexState(url: string): Promise<PageIndexState> {
    const canonical = normalizeUrl(url);
    return pageIndexState(this.store.sql, canonical && canonical !== url ? [url, canonical] : [url]);
  }

  onCrawlEnded(listener: (record: CrawlRecord) => void): () => void {
    return this.runner.onCrawlEnded(listener);
  }

  async close(why?: string): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    this.scheduler?.stop();
    await this.runner.stopAll(why);
    // A sweep under way finishes before the store closes (else it fails half-way, with a warning).
    if (this.sweeping) await this.sweeping;
    await this.searches?.flush();
  }
}
