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
import type { Sql } from '../store/sql.js';
import { insertDelivery, pruneDeliveries } from '../store/webhooks.js';
import { DELIVERIES_KEEP_DAYS, HISTORY_KEEP_DAYS } from '../model/limits.js';
import { crawlChanges } from './history/changes.js';
import { webhookBody } from './webhooks/payload.js';

const DAY_MS = 86_400_000;

export interface CrawlEndContext {
  /** The root Sql of the store (recordPendingEnds opens its transactions on it). */
  sql: Sql;
  project: string;
  targets: readonly TargetConfig[];
  webhooks: readonly WebhookConfig[];
  logger: Logger;
  now?: () => number;
}

/**
 * Records the end of crawl `id` when it has ended and is not recorded yet; call inside the transaction that wrote
 * its end status, with that transaction's Sql. Answers whether it recorded anything.
 */
export async function recordCrawlEnd(ctx: CrawlEndContext, sql: Sql, id: number): Promise<boolean> {
  const { project } = ctx;
  const end = await unrecordedEnd(sql, project, id);
  if (!end) return false;
  await recordProblemHistory(sql, project, id, end.finishedAt);
  const now = (ctx.now ?? Date.now)();
  await pruneProblemHistory(sql, project, new Date(now - HISTORY_KEEP_DAYS * DAY_MS).toISOString());
  await pruneDeliveries(sql, project, now - DELIVERIES_KEEP_DAYS * DAY_MS);
  const crawl = (await getCrawl(sql, project, id))!;
  const event = crawlEndEvent(crawl.status);
  const hooks = event ? ctx.webhooks.filter((h) => h.events.includes(event)) : [];
  if (!event || !hooks.length) return true;
  const body = webhookBody({ event, project, crawl, changes: await crawlChanges(sql, project, ctx.targets, id) });
  for (const h of hooks) await insertDelivery(sql, { id: randomUUID(), project, crawlId: id, event, url: h.url, body, now });
  return true;
}

/** Records every ended crawl of the project not recorded yet (oldest first, one transaction each); their ids. */
export async function recordPendingEnds(ctx: CrawlEndContext): Promise<number[]> {
  const done: number[] = [];
  for (const id of await unrecordedEnds(ctx.sql, ctx.project)) {
    try {
      if (await ctx.sql.tx((t) => recordCrawlEnd(ctx, t, id))) done.push(id);
    } catch (err) {
      ctx.logger.warn({ err, crawl: id }, 'recording the end of a crawl failed');
    }
  }
  return done;
}
