// What happens once when a crawl has ended, in the transaction that records its end: the problem history moves on
// (first seen, fixed), and a delivery per matching webhook goes into the outbox. A crawl ended by this process is
// recorded with its end status; one marked failed elsewhere (its owner died) by the next sweep of any process.
// Old history (problems fixed long ago) and finished deliveries are forgotten here too.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../lib/log.js';
import type { TargetConfig, WebhookConfig } from '../model/config.js';
import { crawlEndEvent } from '../model/webhooks.js';
import { getCrawl } from '../store/crawls.js';
import { pruneProblemHistory, recordProblemHistory, unrecordedEnd, unrecordedEnds } from '../store/history.js';
import type { Store } from '../store/store.js';
import { insertDelivery, pruneDeliveries } from '../store/webhooks.js';
import { DELIVERIES_KEEP_DAYS, HISTORY_KEEP_DAYS } from '../model/limits.js';
import { crawlChanges } from './history/changes.js';
import { webhookBody } from './webhooks/payload.js';

const DAY_MS = 86_400_000;

export interface CrawlEndContext {
  store: Store;
  project: string;
  targets: readonly TargetConfig[];
  webhooks: readonly WebhookConfig[];
  logger: Logger;
  now?: () => number;
}

/**
 * Records the end of crawl `id` when it has ended and is not recorded yet; call inside the transaction that wrote
 * its end status. Answers whether it recorded anything.
 */
export function recordCrawlEnd(ctx: CrawlEndContext, id: number): boolean {
  const { store, project } = ctx;
  const end = unrecordedEnd(store, project, id);
  if (!end) return false;
  recordProblemHistory(store, project, id, end.finishedAt);
  const now = (ctx.now ?? Date.now)();
  pruneProblemHistory(store, project, new Date(now - HISTORY_KEEP_DAYS * DAY_MS).toISOString());
  pruneDeliveries(store, project, now - DELIVERIES_KEEP_DAYS * DAY_MS);
  const crawl = getCrawl(store, project, id)!;
  const event = crawlEndEvent(crawl.status);
  const hooks = event ? ctx.webhooks.filter((h) => h.events.includes(event)) : [];
  if (!event || !hooks.length) return true;
  const body = webhookBody({ event, project, crawl, changes: crawlChanges(store, project, ctx.targets, id) });
  for (const h of hooks) insertDelivery(store, { id: randomUUID(), project, crawlId: id, event, url: h.url, body, now });
  return true;
}

/** Records every ended crawl of the project not recorded yet (oldest first, one transaction each); their ids. */
export function recordPendingEnds(ctx: CrawlEndContext): number[] {
  const done: number[] = [];
  for (const id of unrecordedEnds(ctx.store, ctx.project)) {
    try {
      if (ctx.store.tx(() => recordCrawlEnd(ctx, id))) done.push(id);
    } catch (err) {
      ctx.logger.warn({ err, crawl: id }, 'recording the end of a crawl failed');
    }
  }
  return done;
}
