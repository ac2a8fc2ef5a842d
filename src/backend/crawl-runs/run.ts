// Running one crawl in this process, from the record to its finish: the engine on the project's store, the watch
// that answers stops asked for elsewhere, the full-crawl clearing, and the finish written together with what
// follows it (afterCrawl). Which crawls run, and who hears of them, is the runner's business.
import type { TargetConfig } from '../../model/config.js';
import { createAddressPolicy, targetEndpoint } from '../../crawler/address-policy.js';
import type { CrawlResult } from '../../crawler/engine/index.js';
import type { FetcherOptions } from '../../crawler/fetcher.js';
import type { Logger } from '../../lib/log.js';
import type { SharedCrawl, SharedPlan } from '../../model/shared-crawl.js';
import { crawlEnded, type CrawlProgress, type CrawlRecord } from '../../model/types.js';
import {
  crawlControl,
  finishCrawl,
  getCrawl,
  markReportReady,
  setCrawlStatus,
  updateCrawlStats,
} from '../../store/crawls.js';
import { isObserved, observe } from '../../model/observations.js';
import { finishPendingIndex } from '../../store/pending-index.js';
import { readProblemTallies } from '../../store/report-query.js';
import { problemCounts } from '../../model/counts.js';
import { canonicalTargetHosts } from '../../model/site-urls.js';
import type { ServiceStore } from '../../store/service-store.js';
import type { Sql } from '../../store/sql.js';
import { applyFullCrawlClearing } from '../clearing.js';
import { dropShared, sharedCrawl } from '../shared-crawl.js';
import { crawlFinish, STOP_REASONS, type CrawlFinish } from './finish.js';

/** Set by `svc worker`: how this process shares crawls with the project's other workers. */
export interface ShareOptions {
  worker: string;
  pageConcurrency?: number;
  leaseMs?: number;
}

export interface RunOptions {
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
  /** How often a running crawl looks for stop requests (default 2000 ms); its heartbeat rides on every stats write. */
  heartbeatMs?: number;
  /** How often progress listeners hear from a crawl, and its live stats reach the crawl record. */
  progressIntervalMs?: number;
  /**
   * Runs inside the transaction that writes a crawl's finish (any final status), on that transaction's Sql: what
   * follows from it (problem history, webhook outbox: after-crawl.ts). When it throws, the finish is still written
   * and it is rolled back alone.
   */
  afterCrawl?: (sql: Sql, crawlId: number) => Promise<unknown>;
  /**
   * Set by `svc worker`: the crawls this process runs are shared (their frontier and host politeness live in the
   * database, as every crawl's do on PostgreSQL), and when it has none of its own it joins a running shared crawl
   * of the project.
   */
  share?: ShareOptions;
}

export type ProgressListener = (crawlId: number, progress: CrawlProgress) => void;

/**
 * Runs crawl rec here until it finishes, and writes its finish (failed when the run throws). Never rejects: a store
 * already closed leaves the record for the next open to mark failed.
 */
export async function runToFinish(
  opts: RunOptions,
  rec: CrawlRecord,
  controller: AbortController,
  shareAs: ShareOptions | null,
  onProgress: ProgressListener,
): Promise<void> {
  const { store, logger } = opts;
  // Let start() return the queued record before any work happens.
  await new Promise((r) => setImmediate(r));
  const { signal } = controller;
  let shared: SharedCrawl | undefined;
  const unwatch = watchCrawl(opts, rec.id, controller, () => shared);
  /** Another process took the lead over: the crawl is its to end. */
  const superseded = () => shared?.role === 'join';
  try {
    await setCrawlStatus(store.sql, rec.id, 'running');
    // A crawl to be shared (shareAs) is led here with the project's other processes (not one that checks fragments:
    // a fragment's outcome needs every page's ids in one process, so such a crawl runs alone and ends with it).
    const share = shareAs && !opts.targets.some((t) => t.check_fragments) ? shareAs : null;
    shared = share
      ? sharedCrawl(store.sql, { crawlId: rec.id, worker: share.worker, role: 'lead', leaseMs: share.leaseMs })
      : undefined;
    logger.info(
      { crawl: rec.id, mode: rec.mode, trigger: rec.trigger, ...(share ? { shared: true, worker: share.worker } : {}) },
      'crawl started',
    );
    const result = await crawlWithEngine(opts, rec, signal, onProgress, shared);
    if (superseded()) logger.warn({ crawl: rec.id }, STOP_REASONS.takenOver);
    else await endHere(opts, rec, result, signal);
  } catch (err) {
    if (!superseded()) await failHere(opts, rec, err);
  } finally {
    unwatch();
    // The finish is written: the shared frontier and host state go (a worker still sharing finds the frontier gone).
    if (shared && !superseded())
      await dropShared(store.sql, rec.id).catch((err: unknown) =>
        logger.warn({ err, crawl: rec.id }, 'dropping the shared frontier failed'),
      );
  }
}

/**
 * The crawl's end, written by the process that leads it: the full crawl's clearing, the stats, the finish. A crawl
 * another process has ended or taken over meanwhile is left as that process has it (nothing cleared or written).
 */
async function endHere(opts: RunOptions, rec: CrawlRecord, result: CrawlResult, signal: AbortSignal): Promise<void> {
  const { store, logger } = opts;
  const finish = crawlFinish(rec.mode, result, signal);
  if (!(await stillOurs(opts, rec.id))) return;
  // Only a target whose crawl reached its end decides what is forgotten (a stop or an unreachable site does not).
  if (rec.mode === 'full' && !result.stopped) await applyFullCrawlClearing(store.sql, rec.id, result.targets, logger);
  await updateCrawlStats(store.sql, rec.id, result.stats);
  // The link report is final: it says so, with its counts, before the search index is built from the crawl's pages.
  const tallies = await readProblemTallies(store.sql, {
    project: opts.project,
    hosts: canonicalTargetHosts(opts.targets),
    since: null,
  });
  await markReportReady(store.sql, rec.id, problemCounts(tallies));
  // Its stats are its heartbeat while the index is built, as they were while it crawled.
  const indexed = await finishPendingIndex(store.sql, () => updateCrawlStats(store.sql, rec.id, result.stats));
  logger.debug({ crawl: rec.id, pages: indexed }, 'search index built');
  await writeFinish(opts, rec.id, finish);
  logger.info(
    { crawl: rec.id, mode: rec.mode, status: finish.status, error: finish.error, ...result.stats },
    'crawl ended',
  );
}

/** The lead's run threw: the crawl is failed with the reason. Never rejects. */
async function failHere(opts: RunOptions, rec: CrawlRecord, err: unknown): Promise<void> {
  opts.logger.error({ err, crawl: rec.id }, 'crawl failed');
  try {
    // What it stored still goes into the index (as it did when pages were indexed as written).
    await finishPendingIndex(opts.store.sql);
    await writeFinish(opts, rec.id, { status: 'failed', error: err instanceof Error ? err.message : String(err) });
  } catch {
    // the store is gone (closing): the next open marks it failed
  }
}

/** This process's side of a shared crawl it did not start: a share of it as a worker that joined. */
export function joinShared(opts: RunOptions, rec: CrawlRecord, plan: SharedPlan, share: ShareOptions): SharedCrawl {
  return sharedCrawl(opts.store.sql, {
    crawlId: rec.id,
    worker: share.worker,
    role: 'join',
    plan,
    leaseMs: share.leaseMs,
  });
}

/**
 * This worker's share of a shared crawl another worker leads: it ends when the frontier does. When this worker has
 * taken the lead over meanwhile (shared.promote: its lead died), it ends the crawl as the lead would have, and drops
 * the shared state. Never rejects.
 */
export async function runShare(
  opts: RunOptions,
  rec: CrawlRecord,
  shared: SharedCrawl,
  controller: AbortController,
  onProgress: ProgressListener,
): Promise<void> {
  const { store, logger } = opts;
  await new Promise((r) => setImmediate(r));
  const unwatch = watchCrawl(opts, rec.id, controller, () => shared);
  try {
    logger.info(
      { crawl: rec.id, mode: rec.mode, worker: shared.worker, role: shared.role },
      shared.role === 'lead' ? 'took the lead of a shared crawl over' : 'joined a shared crawl',
    );
    const result = await crawlWithEngine(opts, rec, controller.signal, onProgress, shared);
    if (shared.role === 'lead') await endHere(opts, rec, result, controller.signal);
    else
      logger.info(
        { crawl: rec.id, pages: result.stats.pages, links: result.stats.links, stopped: result.stopped },
        'left the shared crawl: its share done',
      );
  } catch (err) {
    if (shared.role === 'lead') await failHere(opts, rec, err);
    else
      logger.warn(
        { err, crawl: rec.id },
        'crawling a share of a shared crawl failed: its claims go back to the others',
      );
  } finally {
    unwatch();
    if (shared.role === 'lead')
      await dropShared(store.sql, rec.id).catch((err: unknown) =>
        logger.warn({ err, crawl: rec.id }, 'dropping the shared frontier failed'),
      );
  }
}

/** Pages a manual crawl may list and still write on this thread: a writer thread costs more to start than they do to write. */
export const WRITE_HERE_MAX_PAGES = 32;

/**
 * Whether a crawl's writes are worth a thread of their own beside the crawling: not a manual crawl of a few pages
 * (`svc crawl manual URL`, a live update), whose few batches commit here sooner than the thread would start.
 */
export function writesBeside(rec: Pick<CrawlRecord, 'mode' | 'urls'>): boolean {
  return rec.mode !== 'manual' || (rec.urls?.length ?? 0) > WRITE_HERE_MAX_PAGES;
}

/** Runs the crawl engine on crawl rec (alone, or as one worker of a shared crawl). */
async function crawlWithEngine(
  opts: RunOptions,
  rec: CrawlRecord,
  signal: AbortSignal,
  onProgress: ProgressListener,
  shared?: SharedCrawl,
): Promise<CrawlResult> {
  const { store, logger } = opts;
  // The engine (undici, htmlparser2, css-select) loads with the first crawl, not with every command.
  const { runCrawl } = await import('../../crawler/engine/index.js');
  return runCrawl({
    sink: store.openCrawlWriter(rec.id, { threaded: opts.threads !== false && writesBeside(rec), deferIndex: true }),
    reader: store.crawlReader(),
    threads: opts.threads,
    crawlId: rec.id,
    mode: rec.mode,
    targets: opts.targets,
    urls: rec.urls,
    logger,
    signal,
    fetcher: { ...opts.fetcher, addressPolicy: addressPolicyOf(opts) },
    progressIntervalMs: opts.progressIntervalMs ?? 500,
    onProgress: (p) => onProgress(rec.id, p),
    shared,
    pageConcurrency: opts.share?.pageConcurrency,
  });
}

/**
 * While a crawl runs: its stats, written by the writer with every batch (at least every progress tick), are the
 * heartbeat. This loop only reads (a write here would wait for the writer's lock on the crawling thread): it
 * answers a stop asked for by another process, a record another process has already marked failed, or (a shared
 * crawl led here) another process that has taken the lead over.
 */
function watchCrawl(
  opts: RunOptions,
  id: number,
  controller: AbortController,
  shared: () => SharedCrawl | undefined,
): () => void {
  const { store } = opts;
  const t = setInterval(() => {
    void crawlControl(store.sql, id).then(
      (c) => {
        const lead = shared();
        if (c?.stopRequested) controller.abort(STOP_REASONS.requested);
        else if (c && crawlEnded(c.status)) controller.abort(`marked ${c.status} by another process`);
        else if (c && !c.ownedHere && lead?.role === 'lead') {
          // Silent past the heartbeat limit, this process lost the lead: it leaves the crawl to the new one.
          lead.demote();
          controller.abort(STOP_REASONS.takenOver);
        }
      },
      (err: unknown) => opts.logger.warn({ err, crawl: id }, 'reading the crawl record for stop requests failed'),
    );
  }, opts.heartbeatMs ?? 2000);
  t.unref();
  return () => clearInterval(t);
}

/**
 * The finish (its pages are in the search index by now), and in the same transaction what follows from it
 * (opts.afterCrawl, in a savepoint of its own).
 */
async function writeFinish(opts: RunOptions, id: number, finish: CrawlFinish): Promise<void> {
  const written = await opts.store.sql.tx(async (t) => {
    if (!(await finishCrawl(t, id, finish.status, finish.error))) return false;
    await runAfterCrawl(opts, t, id);
    return true;
  });
  if (!written) opts.logger.warn({ crawl: id, status: finish.status }, LEFT_ALONE);
  else if (isObserved('crawlEnded')) await observeCrawlEnd(opts, id);
}

/** Tells the observers (metrics) of a crawl this process ended, as its record now says. Never rejects. */
async function observeCrawlEnd(opts: RunOptions, id: number): Promise<void> {
  const rec = await getCrawl(opts.store.sql, opts.project, id).catch(() => null);
  if (!rec) return;
  const span = rec.startedAt && rec.finishedAt ? Date.parse(rec.finishedAt) - Date.parse(rec.startedAt) : Number.NaN;
  observe('crawlEnded', {
    project: opts.project,
    mode: rec.mode,
    status: rec.status,
    seconds: Number.isFinite(span) ? Math.max(0, span) / 1000 : null,
    pages: rec.stats.pages,
  });
}

const LEFT_ALONE = 'another process has ended this crawl or taken it over: its record is left as that one wrote it';

/** Whether crawl `id` still runs and is this process's to end (else: said in the log, and false). */
async function stillOurs(opts: RunOptions, id: number): Promise<boolean> {
  const c = await crawlControl(opts.store.sql, id);
  if (c && !crawlEnded(c.status) && c.ownedHere) return true;
  opts.logger.warn({ crawl: id, status: c?.status }, LEFT_ALONE);
  return false;
}

/** Inside the transaction that finishes crawl `id` (on its Sql): what follows from it, in a savepoint of its own. */
export async function runAfterCrawl(
  opts: Pick<RunOptions, 'afterCrawl' | 'logger'>,
  sql: Sql,
  id: number,
): Promise<void> {
  const { afterCrawl, logger } = opts;
  if (!afterCrawl) return;
  try {
    await sql.tx((s) => afterCrawl(s, id));
  } catch (err) {
    logger.error(
      { err, crawl: id },
      'recording the end of the crawl (history, webhooks) failed; the next sweep tries again',
    );
  }
}

/** The connect-time address policy of this project's crawls: its targets and `allow` let through; null when off. */
function addressPolicyOf(opts: RunOptions) {
  const p = opts.addressPolicy === undefined ? {} : opts.addressPolicy;
  if (!p) return null;
  const allowed = opts.targets.map((t) => targetEndpoint(t.host, t.scheme));
  for (const a of p.allow ?? []) allowed.push(targetEndpoint(a, 'http'));
  return createAddressPolicy(allowed);
}
