// Link checks (HEAD, GET fallback) of URLs that are not fetched as pages: queued, run as many at once as
// linkCheckConcurrency allows across all hosts, and waited for before the crawl ends. The external link cache
// answers first where it may.
import { classify } from '../classify.js';
import type { CrawlContext } from './context.js';
import { normalizeUrl } from '../urls.js';
import { recordOutcome, remapLink, unknownOutcome, withAccept } from './outcomes.js';
import { FifoQueue } from './queue.js';

export interface LinkCheck {
  url: string;
  timeoutMs: number;
}

/** The checks waiting and in flight, and who waits for them all to end. */
export class LinkCheckQueue {
  readonly waiting = new FifoQueue<LinkCheck>();
  active = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    private readonly signal: AbortSignal,
  ) {}

  /** Nothing in flight, and nothing waiting that will run (a stop leaves the waiting ones). */
  get idle(): boolean {
    return this.active === 0 && (this.waiting.size === 0 || this.signal.aborted);
  }

  wakeIfIdle(): void {
    if (!this.idle) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  drained(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

/** Queues a check of url. */
export function queueLinkCheck(ctx: CrawlContext, check: LinkCheck): void {
  ctx.checks.waiting.push(check);
  pumpLinkChecks(ctx);
}

/**
 * An external link found ok within cacheMs keeps its stored outcome (and its check time), no request; else it is
 * checked. The store is asked first; meanwhile the lookup counts as a check in progress, so the crawl's end waits.
 */
export function queueExternalLinkCheck(ctx: CrawlContext, check: LinkCheck, cacheMs: number): void {
  const checks = ctx.checks;
  checks.active++;
  void cachedOk(ctx, check.url, cacheMs)
    .then((ok) => {
      if (ok) ctx.counts.linksChecked++;
      else checks.waiting.push(check);
    })
    .finally(() => {
      checks.active--;
      pumpLinkChecks(ctx);
      checks.wakeIfIdle();
    });
}

function pumpLinkChecks(ctx: CrawlContext): void {
  const checks = ctx.checks;
  while (checks.active < checks.concurrency && !ctx.signal.aborted) {
    const check = checks.waiting.shift();
    if (!check) return;
    checks.active++;
    void checkLink(ctx, check).finally(() => {
      checks.active--;
      pumpLinkChecks(ctx);
      checks.wakeIfIdle();
    });
  }
}

/**
 * Checks one link now and records its outcome, under the link as written: fetched where `remap` sends it (the
 * message then says where), tried again as `retries` allows, and counted fine when `accept` says so.
 */
export async function checkLink(ctx: CrawlContext, check: LinkCheck): Promise<void> {
  try {
    const mapped = remapLink(ctx, check.url);
    if (mapped !== null && normalizeUrl(mapped) === null) {
      recordOutcome(ctx, check.url, unknownOutcome(`not checked: remap gives ${mapped}, which is not an http(s) URL`));
      return;
    }
    const fetchUrl = mapped ?? check.url;
    const rules = ctx.rulesFor(fetchUrl);
    const res = await ctx.fetcher.check(fetchUrl, {
      timeoutMs: check.timeoutMs,
      signal: ctx.signal,
      retry: rules.retry.count ? rules.retry : undefined,
    });
    const outcome = withAccept(ctx, res.finalUrl, classify(res));
    recordOutcome(
      ctx,
      check.url,
      mapped === null ? outcome : { ...outcome, message: `${outcome.message} (checked at ${mapped})` },
    );
  } catch (err) {
    ctx.logger.error({ err, url: check.url }, 'link check failed unexpectedly');
  }
}

/** The external link cache: the link was found ok within cacheMs (its stored outcome stands). */
export function cachedOk(ctx: CrawlContext, url: string, cacheMs: number): Promise<boolean> {
  const since = new Date(Date.now() - cacheMs).toISOString();
  return ctx.reader.okCheckedSince(url, since).catch((err: unknown) => {
    ctx.logger.warn({ err, url }, 'reading the external link cache failed: checking the link');
    return false;
  });
}

/** A stop leaves queued checks unrun: `unknown`. */
export function recordUncheckedLinks(ctx: CrawlContext): void {
  for (const check of ctx.checks.waiting.takeAll())
    recordOutcome(ctx, check.url, unknownOutcome('not checked: the crawl was stopped'));
}
