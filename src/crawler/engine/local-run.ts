// A crawl this process runs alone: per target, its seeds, then as many page loops as it may fetch at once, each
// taking the next queued page until the queue is empty and no page in flight can add to it.
import type { CrawlContext } from './context.js';
import { offerSeeds } from './links.js';
import { recordUncheckedLinks } from './link-checks.js';
import { maxPagesMessage, recordOutcome, unknownOutcome } from './outcomes.js';
import { crawlPage } from './page.js';
import { prepareTarget } from './seeds.js';
import type { TargetRun } from './target.js';

export async function runTarget(ctx: CrawlContext, run: TargetRun): Promise<void> {
  offerSeeds(ctx, run, await prepareTarget(ctx, run));
  const ended = await Promise.allSettled(Array.from({ length: run.loops }, () => pageLoop(ctx, run)));
  const failed = ended.find((settled) => settled.status === 'rejected');
  if (failed) throw failed.reason;
  // Pages left in the queue were cut by max_pages, unless the crawl was stopped.
  if (run.queued > 0 && !ctx.signal.aborted) run.cut = true;
}

async function pageLoop(ctx: CrawlContext, run: TargetRun): Promise<void> {
  for (;;) {
    if (ctx.signal.aborted) {
      run.notify();
      return;
    }
    const item = run.next();
    if (!item) {
      if (run.active === 0) {
        run.notify();
        return;
      }
      await run.waitForWork();
      continue;
    }
    run.active++;
    run.fetched++;
    try {
      await crawlPage(ctx, run, item.url);
      await ctx.writer.settle();
    } catch (err) {
      // Only a failure of the crawl itself lands here (a page's own problems are outcomes): stop everything.
      ctx.fail(err);
      throw err;
    } finally {
      run.active--;
      ctx.counts.pagesDone++;
      run.notify();
    }
  }
}

/** Found but never fetched (max_pages, or the crawl was stopped): `unknown`. */
export function recordLeftovers(ctx: CrawlContext): void {
  const stopped = ctx.signal.aborted;
  for (const run of ctx.runs) {
    const rest = run.leftovers();
    const why = stopped ? 'not fetched: the crawl was stopped' : maxPagesMessage(run.config.max_pages);
    for (const { url } of rest) {
      if (run.tracks(url)) recordOutcome(ctx, url, unknownOutcome(why));
    }
  }
  if (stopped) recordUncheckedLinks(ctx);
}
