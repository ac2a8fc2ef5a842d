// The clearing rule of a full crawl: what the report and the index forget once a full crawl has run to its end.
import type { TargetResult } from '../crawler/sink.js';
import type { Logger } from '../lib/log.js';
import { clearForFullCrawl, removePagesNotSeen } from '../store/pages.js';
import type { Sql } from '../store/sql.js';

/**
 * After a full crawl that ran to its end: redirected, skipped and unknown outcomes it did not find again are
 * forgotten, and pages it did not see leave the index, except on a target max_pages cut short or one where no page
 * could be fetched (nothing of those is removed).
 */
export async function applyFullCrawlClearing(
  sql: Sql,
  crawlId: number,
  targets: readonly TargetResult[],
  logger: Logger,
): Promise<void> {
  const unreached = targets.filter((t) => t.unreachable).map((t) => t.host);
  // Outcomes also linked from a target that did not reach its end stay as they were.
  await clearForFullCrawl(sql, crawlId, unreached);
  for (const t of targets) {
    if (t.unreachable) {
      logger.warn({ host: t.host, error: t.error }, 'target unreachable: nothing of it is cleared or removed');
    } else if (t.cutByMaxPages) {
      logger.info({ host: t.host }, 'max_pages cut the crawl short: no page of this target is removed');
    } else if (t.pages === 0) {
      logger.warn({ host: t.host }, 'no page of this target could be fetched: keeping its stored pages');
    } else {
      const removed = await removePagesNotSeen(sql, t.host, crawlId);
      if (removed) logger.info({ host: t.host, removed }, 'pages not seen by this full crawl removed');
    }
  }
}
