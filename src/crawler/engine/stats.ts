// What a crawl tells while it runs and when it ends: the stats the crawl record keeps, the progress the caller
// sees, and a worker's share of a shared crawl. Read from the context, changed nowhere here.
import type { WorkerReport } from '../../model/shared-crawl.js';
import type { CrawlProgress, CrawlStats, CrawlTargetStats } from '../../model/types.js';
import type { CrawlContext } from './context.js';

export function crawlStats(ctx: CrawlContext): CrawlStats {
  const targets: Record<string, CrawlTargetStats> = {};
  const stopped = ctx.signal.aborted;
  for (const run of ctx.runs) {
    const result = run.result(stopped);
    targets[run.host] = {
      pages: run.stored,
      cutByMaxPages: run.cut,
      ...(ctx.options.mode === 'full' ? { walkLinks: run.walk } : {}),
      ...(result.unreachable && result.error !== null ? { unreachable: true, error: result.error } : {}),
    };
  }
  const { counts } = ctx;
  const own = {
    pages: counts.pagesStored,
    links: counts.linksChecked,
    errors: counts.errors,
    notModified: counts.notModified,
    unchanged: counts.unchanged,
    retries: ctx.fetcher.retries,
  };
  // The lead of a shared crawl speaks for every worker.
  for (const worker of ctx.shared?.others ?? []) {
    own.pages += worker.pages;
    own.links += worker.links;
    own.errors += worker.errors;
    own.notModified += worker.notModified;
    own.unchanged += worker.unchanged;
    own.retries += worker.retries ?? 0;
    for (const [host, theirs] of Object.entries(worker.targets)) {
      const mine = targets[host];
      if (mine) mine.pages += theirs.pages;
    }
  }
  const { retries, ...rest } = own;
  return { ...rest, ...(retries ? { retries } : {}), targets };
}

/** This worker's share of a shared crawl. */
export function workerReport(ctx: CrawlContext): WorkerReport {
  const targets: WorkerReport['targets'] = {};
  for (const run of ctx.runs)
    targets[run.host] = { pages: run.stored, seedReached: run.seedReached, failure: run.failure };
  const { counts } = ctx;
  return {
    pages: counts.pagesStored,
    links: counts.linksChecked,
    errors: counts.errors,
    notModified: counts.notModified,
    unchanged: counts.unchanged,
    retries: ctx.fetcher.retries,
    targets,
  };
}

export function crawlProgress(ctx: CrawlContext): CrawlProgress {
  const pagesQueued = ctx.runs.reduce((total, run) => total + run.queued, 0);
  return {
    pagesDone: ctx.counts.pagesDone,
    queued: pagesQueued + ctx.checks.waiting.size,
    pagesQueued,
    errors: ctx.counts.errors,
    linksChecked: ctx.counts.linksChecked,
    requests: ctx.fetcher.requests,
    elapsedMs: Date.now() - ctx.started,
    stats: crawlStats(ctx),
  };
}
