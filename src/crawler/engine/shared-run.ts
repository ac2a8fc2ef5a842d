// A crawl several worker processes run together. The lead reads robots.txt and sitemaps, puts the seeds in the
// frontier and publishes its plan; a worker that joins reads robots.txt (for its own refusals) and takes the
// plan. Then every worker claims pages and link checks until the frontier finishes: the lead finishes it once
// nothing is pending or claimed by anyone, and at the end speaks for every worker's share.
import { CHECK_LANE, type SharedClaim } from '../../model/shared-crawl.js';
import { sleep } from '../host-limiter.js';
import type { CrawlContext } from './context.js';
import { cachedOk, checkLink } from './link-checks.js';
import { offerSeeds } from './links.js';
import { maxPagesMessage, recordOutcome, unknownOutcome } from './outcomes.js';
import { crawlPage } from './page.js';
import { prepareTarget } from './seeds.js';
import { CHECK_PREFIX, checkedUrl, decodeCheckNote, decodePageNote, type SharedFrontier } from './shared-frontier.js';
import { workerReport } from './stats.js';
import type { TargetRun } from './target.js';

/** How long an idle worker of a shared crawl waits before asking for work again. */
const SHARED_POLL_MS = 50;
/** How often done claims are marked (their writes drained first). */
const SHARED_DONE_MS = 200;
/** How often the URLs found go into the frontier. */
const SHARED_ADD_MS = 20;

/** This worker's share of a shared crawl, from the start to the frontier's end (or a stop). */
export async function runShared(ctx: CrawlContext, frontier: SharedFrontier): Promise<void> {
  const shared = frontier.crawl;
  // The plan is published once: a worker that has it joins (even one that takes the lead over from a dead one).
  if (shared.plan === null) {
    await shared.open([
      ...ctx.runs.map((run) => ({ target: run.host, maxPages: run.config.max_pages })),
      { target: CHECK_LANE, maxPages: 2 ** 31 - 1 },
    ]);
    const prepared = await Promise.all(
      ctx.runs.map(async (run) => ({ run, seeds: await prepareTarget(ctx, run, 'lead') })),
    );
    for (const { run, seeds } of prepared) offerSeeds(ctx, run, seeds);
    await frontier.flushAdds();
    await shared.publish({ targets: Object.fromEntries(ctx.runs.map((run) => [run.host, { walk: run.walk }])) });
  } else {
    await Promise.all(ctx.runs.map((run) => prepareTarget(ctx, run, 'join')));
    for (const run of ctx.runs) run.walk = shared.plan?.targets[run.host]?.walk ?? false;
  }
  // One heartbeat at a time (a slow database makes them overlap otherwise), and the last one awaited before the end:
  // a lead's heartbeat brings the other workers' reports, which must not land after the end has counted the store.
  let beating: Promise<void> | null = null;
  const beat = setInterval(() => {
    beating ??= heartbeat(ctx, frontier).finally(() => {
      beating = null;
    });
  }, shared.heartbeatMs);
  const marking = setInterval(
    () => void flushDone(ctx, frontier).catch((err: unknown) => ctx.fail(err)),
    SHARED_DONE_MS,
  );
  const adding = setInterval(() => void frontier.flushAdds().catch((err: unknown) => ctx.fail(err)), SHARED_ADD_MS);
  try {
    const loops = ctx.runs.flatMap((run) =>
      Array.from({ length: run.loops }, () => sharedPageLoop(ctx, frontier, run)),
    );
    const ended = await Promise.allSettled([...loops, sharedChecks(ctx, frontier)]);
    const failed = ended.find((settled) => settled.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    clearInterval(beat);
    clearInterval(marking);
    clearInterval(adding);
    await beating;
  }
  if (ctx.signal.aborted) {
    // Stopped: what this worker holds goes back, and nothing more is handed out.
    await shared.release().catch((err: unknown) => ctx.logger.warn({ err }, 'giving back the claims failed'));
    if (shared.role === 'lead') await shared.close();
  }
}

/** A page loop of a shared crawl: claims of run's target, until the frontier finishes. */
async function sharedPageLoop(ctx: CrawlContext, frontier: SharedFrontier, run: TargetRun): Promise<void> {
  for (;;) {
    if (ctx.signal.aborted || frontier.finished) return;
    const item = run.next();
    if (!item) {
      if (!(await refill(ctx, frontier, run))) await sleep(SHARED_POLL_MS, ctx.signal).catch(() => {});
      continue;
    }
    // Claim the next ones while this one is fetched.
    if (run.queued < run.loops) void refill(ctx, frontier, run).catch((err: unknown) => ctx.fail(err));
    run.active++;
    run.fetched++;
    try {
      await crawlPage(ctx, run, item.url);
      // Done once the URLs its page found are in the frontier (else the frontier could finish without them).
      const claim = item.claim;
      frontier.afterAdds().then(
        () => {
          if (claim && !ctx.signal.aborted) frontier.done(claim.id);
        },
        (err: unknown) => ctx.fail(err),
      );
      await ctx.writer.settle();
    } catch (err) {
      ctx.fail(err);
      throw err;
    } finally {
      frontier.claimedLastmods.delete(item.url);
      run.active--;
      ctx.counts.pagesDone++;
    }
  }
}

/** The link checks of a shared crawl: claimed from its lane, as many at once as link checks may be in flight. */
async function sharedChecks(ctx: CrawlContext, frontier: SharedFrontier): Promise<void> {
  const running = new Set<Promise<void>>();
  for (;;) {
    if (ctx.signal.aborted || frontier.finished) break;
    const room = ctx.checks.concurrency - running.size;
    const claims = room > 0 ? await frontier.crawl.claim(CHECK_LANE, Math.min(room, 16)) : [];
    if (claims === null) {
      frontier.finished = true;
      break;
    }
    for (const claim of claims) {
      const check = checkClaimed(ctx, frontier, claim).finally(() => running.delete(check));
      running.add(check);
    }
    if (!claims.length) {
      if (running.size) await Promise.race(running);
      else {
        await idle(ctx, frontier);
        await sleep(SHARED_POLL_MS, ctx.signal).catch(() => {});
      }
    }
  }
  await Promise.allSettled(running);
}

async function checkClaimed(ctx: CrawlContext, frontier: SharedFrontier, claim: SharedClaim): Promise<void> {
  const url = checkedUrl(claim.url);
  const note = decodeCheckNote(claim.info);
  ctx.checks.active++;
  try {
    if (note.cacheMs > 0 && (await cachedOk(ctx, url, note.cacheMs))) ctx.counts.linksChecked++;
    else await checkLink(ctx, { url, timeoutMs: note.timeoutMs });
    // A link on a stored page of another target that was not walked: checked here, never found anew.
    await ctx.writer.settle();
    if (!ctx.signal.aborted) frontier.done(claim.id);
  } finally {
    ctx.checks.active--;
  }
}

/**
 * Fills run's queue with claims (one claim of this process at a time per target). False when none came: the
 * frontier has nothing pending for its target now (the lead then tries to finish it), or has finished.
 */
async function refill(ctx: CrawlContext, frontier: SharedFrontier, run: TargetRun): Promise<boolean> {
  const before = run.queued;
  let pending = frontier.refills.get(run.host);
  if (!pending) {
    pending = (async () => {
      const claims = await frontier.crawl.claim(run.host, run.loops);
      if (claims === null) {
        frontier.finished = true;
        return;
      }
      for (const claim of claims) {
        const note = decodePageNote(claim.info);
        if (note.seed) run.seeds.add(claim.url);
        if (note.lastmod) frontier.claimedLastmods.set(claim.url, note.lastmod);
        // Links found on its page may name it: it is this crawl's already.
        run.seen.add(claim.url);
        ctx.decided.add(claim.url);
        run.enqueueClaim(claim);
      }
      if (!claims.length) await idle(ctx, frontier);
    })().finally(() => frontier.refills.delete(run.host));
    frontier.refills.set(run.host, pending);
  }
  await pending;
  return run.queued > before || run.queued > 0;
}

/** Nothing to claim now: the lead tries to end the frontier (only the database knows whether anyone still works). */
async function idle(ctx: CrawlContext, frontier: SharedFrontier): Promise<void> {
  if (frontier.crawl.role !== 'lead' || frontier.finished) return;
  await flushDone(ctx, frontier);
  if (await frontier.crawl.finish()) frontier.finished = true;
}

/** Claims handled here are marked done once what they wrote is in the store, with the report that counts them. */
async function flushDone(ctx: CrawlContext, frontier: SharedFrontier): Promise<void> {
  const ids = frontier.takeDone();
  if (!ids.length) return;
  await ctx.writer.drain();
  await frontier.crawl.done(ids, workerReport(ctx));
}

async function heartbeat(ctx: CrawlContext, frontier: SharedFrontier): Promise<void> {
  try {
    await frontier.crawl.heartbeat(workerReport(ctx));
    if (frontier.crawl.role === 'lead') frontier.others = await frontier.crawl.reports();
  } catch (err) {
    ctx.logger.warn({ err }, 'the heartbeat of a shared crawl failed');
  }
}

/**
 * The lead, once the frontier has finished (or the crawl was stopped): the URLs max_pages cut (or the stop left)
 * get `unknown`, and every worker's share is added to its own, as if it had crawled it all.
 */
export async function endShared(ctx: CrawlContext, frontier: SharedFrontier, stopped: boolean): Promise<void> {
  const shared = frontier.crawl;
  // A worker that joined reported its share with every claim it marked done.
  if (shared.role !== 'lead') return;
  for (const state of stopped ? (['pending', 'cut'] as const) : (['cut'] as const)) {
    for (let after = 0; ; ) {
      const rows = await shared.leftovers(state, after);
      if (!rows.length) break;
      after = rows.at(-1)!.id;
      for (const row of rows) {
        if (row.target === CHECK_LANE) {
          recordOutcome(ctx, checkedUrl(row.url), unknownOutcome('not checked: the crawl was stopped'));
          continue;
        }
        const run = ctx.runs.find((target) => target.host === row.target);
        if (run && !stopped) run.cut = true;
        if (!run?.tracks(row.url)) continue;
        recordOutcome(
          ctx,
          row.url,
          unknownOutcome(stopped ? 'not fetched: the crawl was stopped' : maxPagesMessage(run.config.max_pages)),
        );
      }
    }
  }
  frontier.others = [];
  const { counts } = ctx;
  for (const worker of await shared.reports()) {
    for (const run of ctx.runs) {
      const theirs = worker.targets[run.host];
      if (!theirs) continue;
      run.seedReached ||= theirs.seedReached;
      run.failure ??= theirs.failure;
    }
  }
  // Pages, links, errors and kept pages are counted in the store: what a dead worker wrote and another did again
  // counts once.
  await ctx.writer.drain();
  const kept = await shared.storedKept();
  counts.notModified = kept.notModified;
  counts.unchanged = kept.unchanged;
  const outcomes = await shared.storedOutcomes(CHECK_PREFIX);
  counts.linksChecked = outcomes.links;
  counts.errors = outcomes.errors;
  const stored = await shared.storedPages();
  counts.pagesStored = 0;
  for (const run of ctx.runs) {
    run.stored = stored.get(run.host) ?? 0;
    counts.pagesStored += run.stored;
  }
}
