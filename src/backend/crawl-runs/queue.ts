// The project's crawl queue in the database: crawls of schedules, live update and `svc crawl --queue` wait there
// until a serving process claims one. Only the database side; when to look is the runner's business.
import type { TargetConfig } from '../../model/config.js';
import { BackendError } from '../../model/errors.js';
import type { SharedPlan } from '../../model/shared-crawl.js';
import type { CrawlRecord, CrawlRequest, CrawlTrigger } from '../../model/types.js';
import {
  claimQueuedCrawl,
  enqueueCrawl,
  getCrawl,
  hasClaimableCrawl,
  setWaitingCrawlRequest,
  waitingCrawl,
} from '../../store/crawls.js';
import { joinableCrawl } from '../../store/crawl-plan.js';
import type { ServiceStore } from '../../store/service-store.js';
import { checkCrawlUrls, mergeQueuedUrls, requireTargets, validateCrawlRequest } from './request.js';

export interface QueueContext {
  store: ServiceStore;
  project: string;
  targets: readonly TargetConfig[];
  /** A crawl whose owner has not beaten for this long is dead (default 30 s). */
  deadAfterMs?: number;
}

/**
 * Queues a crawl, never a conflict. Live update merges its URLs into a live-update crawl still waiting, if there is
 * one, so a burst of changes is one crawl. Answers the queued record.
 */
export async function queueCrawl(ctx: QueueContext, req: CrawlRequest, trigger: CrawlTrigger): Promise<CrawlRecord> {
  const { store, project, targets } = ctx;
  if (trigger === 'live_update' && req.mode === 'manual') {
    requireTargets(targets);
    const urls = checkCrawlUrls(req.urls ?? [], targets);
    if (!urls.length) throw new BackendError('invalid_input', 'urls: must list at least one URL');
    return store.sql.tx(async (t) => {
      const waiting = await waitingCrawl(t, project, 'live_update');
      if (waiting) {
        const merged = mergeQueuedUrls(waiting, urls);
        if (await setWaitingCrawlRequest(t, waiting.id, merged.mode, merged.urls))
          return (await getCrawl(t, project, waiting.id))!;
      }
      const fresh = mergeQueuedUrls({ mode: 'manual' }, urls);
      return enqueueCrawl(t, project, fresh.mode, fresh.urls, trigger);
    });
  }
  const { mode, urls } = validateCrawlRequest(req, targets);
  return store.sql.tx((t) => enqueueCrawl(t, project, mode, urls, trigger));
}

/** Claims the oldest queued crawl for this process, or null when there is none to claim. */
export async function claimNextCrawl(ctx: QueueContext): Promise<CrawlRecord | null> {
  // A read first: the write lock only when there is something to claim (this runs every second).
  if (!(await hasClaimableCrawl(ctx.store.sql, ctx.project))) return null;
  return claimQueuedCrawl(ctx.store.sql, ctx.project, { deadAfterMs: ctx.deadAfterMs });
}

/** A running shared crawl of the project another worker leads, with its plan; null when there is none. */
export async function findJoinableCrawl(ctx: QueueContext): Promise<{ rec: CrawlRecord; plan: SharedPlan } | null> {
  const found = await joinableCrawl(ctx.store.sql, ctx.project);
  if (!found) return null;
  const rec = await getCrawl(ctx.store.sql, ctx.project, found.crawlId);
  if (rec?.status !== 'running') return null;
  return { rec, plan: JSON.parse(found.plan) as SharedPlan };
}
