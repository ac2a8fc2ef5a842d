// What follows once when a crawl has ended (its afterCrawl), in the transaction that writes its finish: the problem
// history moves on (first seen, fixed), and a delivery per matching webhook goes into the outbox. A crawl finished by
// this process has it with its final status; one marked failed elsewhere (its owner died) by the next sweep of any process.
// Old history (problems fixed long ago), finished deliveries and searches past their retention are forgotten here too.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../lib/log.js';
import type { TargetConfig, WebhookConfig } from '../model/config.js';
import { crawlEndEvent } from '../model/webhooks.js';
import { getCrawl } from '../store/crawls.js';
import { pruneProblemHistory, recordProblemHistory, pendingAfterCrawl, pendingAfterCrawls } from '../store/history.js';
import type { Sql } from '../store/sql.js';
import { listReceivers } from '../store/webhook-receivers.js';
import { insertDelivery, pruneDeliveries } from '../store/webhooks.js';
import { pruneSearchStats } from '../store/search-stats.js';
import { retentionStart } from '../model/search-stats.js';
import { DELIVERIES_KEEP_DAYS, HISTORY_KEEP_DAYS } from '../model/limits.js';
import { crawlChanges } from './history/changes.js';
import { webhookBody } from './webhooks/payload.js';

const DAY_MS = 86_400_000;

export interface AfterCrawlContext {
  /** The root Sql of the store (runPendingAfterCrawls opens its transactions on it). */
  sql: Sql;
  project: string;
  targets: readonly TargetConfig[];
  webhooks: readonly WebhookConfig[];
  logger: Logger;
  /** search_stats.retention_days: recorded searches older than this are deleted here too. */
  searchStatsRetentionDays: number;
  now?: () => number;
}

/**
 * The afterCrawl of crawl `id` when it has ended and has not had it yet; call inside the transaction that wrote its
 * finish, with that transaction's Sql. Answers whether it did anything.
 */
export async function runAfterCrawl(ctx: AfterCrawlContext, sql: Sql, id: number): Promise<boolean> {
  const { project } = ctx;
  const pending = await pendingAfterCrawl(sql, project, id);
  if (!pending) return false;
  await recordProblemHistory(sql, project, id, pending.finishedAt);
  const now = (ctx.now ?? Date.now)();
  await pruneProblemHistory(sql, project, new Date(now - HISTORY_KEEP_DAYS * DAY_MS).toISOString());
  await pruneDeliveries(sql, project, now - DELIVERIES_KEEP_DAYS * DAY_MS);
  await pruneSearchStats(sql, project, retentionStart(now, ctx.searchStatsRetentionDays));
  const crawl = (await getCrawl(sql, project, id))!;
  const event = crawlEndEvent(crawl.status);
  // The config's receivers and those added in the console (read in this transaction: one removed is not sent to).
  const receivers = event ? [...ctx.webhooks, ...(await listReceivers(sql, project))] : [];
  const hooks = event ? receivers.filter((h) => h.events.includes(event)) : [];
  if (!event || !hooks.length) return true;
  const body = webhookBody({ event, project, crawl, changes: await crawlChanges(sql, project, ctx.targets, id) });
  for (const h of hooks)
    await insertDelivery(sql, { id: randomUUID(), project, crawlId: id, event, url: h.url, body, now });
  return true;
}

/** The afterCrawl of every ended crawl of the project that has not had it yet (oldest first, one transaction each); their ids. */
export async function runPendingAfterCrawls(ctx: AfterCrawlContext): Promise<number[]> {
  const done: number[] = [];
  for (const id of await pendingAfterCrawls(ctx.sql, ctx.project)) {
    try {
      if (await ctx.sql.tx((t) => runAfterCrawl(ctx, t, id))) done.push(id);
    } catch (err) {
      ctx.logger.warn({ err, crawl: id }, 'recording the end of a crawl failed');
    }
  }
  return done;
}
