// What the crawl does with a URL it finds on a page or as a seed: walks it as a page of its target, checks it as
// a link, or records why not, so that each gets exactly one outcome per crawl. Where several workers share the
// crawl, whatever is to be fetched or checked goes to the frontier instead of this process's queues.
import type { ExtractedLink, FoundLink } from '../../model/crawl-writes.js';
import { matchesAny, overlongStandIn, overlongUrl } from '../urls.js';
import type { CrawlContext } from './context.js';
import { queueExternalLinkCheck, queueLinkCheck } from './link-checks.js';
import { decideOutcome, maxPagesMessage, remapLink, skippedOutcome, unknownOutcome } from './outcomes.js';
import { checkEntry, encodeSeedNote } from './shared-frontier.js';
import type { TargetRun } from './target.js';

/**
 * Walks (when allowed) and tracks the links of a crawled page of run; returns the ones to store with it, unless
 * `collect` is false (a kept page's links, replayed: stored with it already, so none are gathered).
 */
export function handleLinks(
  ctx: CrawlContext,
  run: TargetRun,
  links: readonly ExtractedLink[],
  nofollow: boolean,
  collect = true,
): FoundLink[] {
  const out: FoundLink[] = [];
  const stored = collect ? new Set<string>() : null;
  for (const link of links) {
    const owner = ctx.targetFor(link.url);
    const url = owner ? owner.canon(link.url) : link.url;
    // skip_link_patterns: neither walked, checked nor reported.
    if (matchesAny(url, run.skipPatterns)) continue;
    const tracked = run.tracks(url);
    const overlong = overlongUrl(url);
    if (overlong) {
      // Refused alone (the page and its other links are kept): reported under a cut stand-in, never fetched.
      const stand = overlongStandIn(url);
      if (tracked) {
        if (stored && !stored.has(stand)) {
          stored.add(stand);
          out.push({ url: stand, element: link.element, text: link.text });
        }
        decideOutcome(ctx, stand, unknownOutcome(overlong));
      }
      continue;
    }
    const mapped = remapLink(ctx, url);
    if (mapped !== null) {
      // Remapped: stored and reported as written, checked where it maps to; a page of this target it maps to is
      // walked as that page. The link as written is never fetched as a page.
      if (tracked && stored && !stored.has(url)) {
        stored.add(url);
        out.push({ url, element: link.element, text: link.text });
      }
      const target = ctx.targetFor(mapped);
      if (
        target === run &&
        run.walk &&
        link.walkable &&
        !nofollow &&
        !(link.nofollow && run.config.respect_robots_meta)
      )
        offerPage(ctx, run, run.canon(mapped));
      if (tracked && !ctx.decided.has(url)) queueCheck(ctx, url, run.config.request_timeout_ms, 0);
      continue;
    }
    if (tracked) {
      // A fragment is checked on links to a target's pages; the page itself gets its outcome as any link does.
      const fragment = link.fragment && owner && run.config.check_fragments ? link.fragment : '';
      const key = fragment ? `${url}#${fragment}` : url;
      if (stored && !stored.has(key)) {
        stored.add(key);
        out.push({ url: key, element: link.element, text: link.text });
      }
      if (fragment) ctx.fragments?.found(key, url, fragment);
    }
    if (owner === run && run.walk && link.walkable && !nofollow && !(link.nofollow && run.config.respect_robots_meta))
      offerPage(ctx, run, url);
    // A stylesheet of a target that checks CSS is fetched for the links it holds, walking or not.
    else if (link.stylesheet && owner?.css && tracked) offerPage(ctx, owner, url);
    if (tracked) ensureOutcome(ctx, url, owner, run);
  }
  return out;
}

/** A target's seeds (canonical URLs): its pages to start from. */
export function offerSeeds(ctx: CrawlContext, run: TargetRun, seeds: readonly string[]): void {
  for (const seed of seeds) {
    run.seeds.add(seed);
    offerPage(ctx, run, seed, true);
  }
}

/** Queues a page of run unless it was seen, is refused, or max_pages is reached (then it is `unknown`). */
export function offerPage(ctx: CrawlContext, run: TargetRun, url: string, seed = false): void {
  if (run.seen.has(url)) return;
  run.seen.add(url);
  const overlong = overlongUrl(url);
  if (overlong) {
    // A seed or a sitemap's URL too long to keep (a link's is refused where it is found).
    ctx.logger.warn({ url: overlongStandIn(url), target: run.host }, overlong.replace('not checked', 'not fetched'));
    return;
  }
  const refusal = run.refusal(url);
  if (refusal) {
    // Links get their `skipped` outcome from ensureOutcome; a seed nobody links to gets it here.
    if (seed && run.tracks(url)) decideOutcome(ctx, url, skippedOutcome(refusal));
    return;
  }
  if (ctx.shared) {
    // Whoever adds it first to the frontier has it fetched; max_pages is the frontier's to hold.
    ctx.decided.add(url);
    ctx.shared.found({ url, target: run.host, info: seed ? encodeSeedNote(run.sitemap?.get(url) ?? null) : null });
    return;
  }
  if (run.full) {
    run.cut = true;
    if (run.tracks(url)) decideOutcome(ctx, url, unknownOutcome(maxPagesMessage(run.config.max_pages)));
    return;
  }
  // Its page fetch records its outcome (ensureOutcome finds it in run.seen: not added to decided as well).
  run.enqueue(url);
}

/** Makes sure a tracked link (of owner, or external: undefined) found on a page of `from` gets exactly one outcome. */
function ensureOutcome(ctx: CrawlContext, url: string, owner: TargetRun | undefined, from: TargetRun): void {
  if (ctx.decided.has(url)) return;
  if (owner) {
    const refusal = owner.refusal(url);
    if (refusal) {
      decideOutcome(ctx, url, skippedOutcome(refusal));
      return;
    }
    if (owner.seen.has(url)) return; // queued: its page fetch records it
  }
  queueCheck(ctx, url, (owner ?? from).config.request_timeout_ms, owner ? 0 : from.externalCacheMs);
}

/** Has url checked as a link, once for the crawl (cacheMs: how long an external link's ok result is reused). */
function queueCheck(ctx: CrawlContext, url: string, timeoutMs: number, cacheMs: number): void {
  ctx.decided.add(url);
  if (ctx.shared) {
    // Checked by whichever worker claims it (once for the crawl), the external link cache asked there.
    ctx.shared.found(checkEntry(url, { timeoutMs, cacheMs }));
  } else if (cacheMs > 0) {
    queueExternalLinkCheck(ctx, { url, timeoutMs }, cacheMs);
  } else {
    queueLinkCheck(ctx, { url, timeoutMs });
  }
}
