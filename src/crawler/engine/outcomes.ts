// Every link gets one outcome per crawl: recorded here, so the sink, the counters and what fragments need
// of it all stay in step.
import { isBroken } from '../../model/link-reasons.js';
import { acceptedBy, remapUrl } from '../../model/link-rules.js';
import { normalizeUrl } from '../urls.js';
import type { Classification } from '../classify.js';
import type { CrawlContext } from './context.js';

/** Records url's outcome (again, if need be: a page fetch after its link was found records the same). */
export function recordOutcome(ctx: CrawlContext, url: string, outcome: Classification): void {
  // Once the crawl is stopped, `unknown` only fills gaps: it must not hide what the last complete crawl found.
  const onlyIfNew = outcome.reason === 'unknown' && ctx.signal.aborted;
  ctx.writer.outcome({
    url,
    httpStatus: outcome.httpStatus,
    reason: outcome.reason,
    message: outcome.message,
    redirectsTo: outcome.redirectsTo,
    blocked: outcome.blocked === true,
    crawlId: ctx.options.crawlId,
    onlyIfNew,
  });
  if (ctx.fragments && ctx.targetFor(url)) ctx.fragments.pageOutcome(url, outcome);
  if (outcome.reason !== 'skipped') ctx.counts.linksChecked++;
  // A bot block is not breakage: it keeps its reason in the report but is not counted as broken.
  if (isBroken(outcome.reason) && !outcome.blocked) ctx.counts.errors++;
}

/** Records url's outcome unless this crawl has decided it already. */
export function decideOutcome(ctx: CrawlContext, url: string, outcome: Classification): void {
  if (ctx.decided.has(url)) return;
  ctx.decided.add(url);
  recordOutcome(ctx, url, outcome);
}

/**
 * An answer the rules of the URL that gave it accept (`accept`: host pattern → codes) counts as fine: `ok`, its
 * status kept, the message naming the rule.
 */
export function withAccept(ctx: CrawlContext, answeredUrl: string, outcome: Classification): Classification {
  if (outcome.reason === 'ok' || outcome.httpStatus === 0) return outcome;
  let host: string;
  try {
    host = new URL(answeredUrl).hostname;
  } catch {
    return outcome;
  }
  const by = acceptedBy(ctx.rulesFor(answeredUrl), host, outcome.httpStatus);
  if (by === null) return outcome;
  return {
    reason: 'ok',
    httpStatus: outcome.httpStatus,
    message: `accepted (accept "${by}"): ${outcome.message}`,
    redirectsTo: outcome.redirectsTo,
  };
}

/**
 * Where a link as written is fetched (`remap`): the normalized replacement, or null when no pair matches. A
 * replacement that is not an http(s) URL comes back as written, for the check to say so.
 */
export function remapLink(ctx: CrawlContext, url: string): string | null {
  const mapped = remapUrl(ctx.rulesFor(url), url);
  if (mapped === null || mapped === url) return null;
  return normalizeUrl(mapped) ?? mapped;
}

/** The outcome of a URL this crawl found but never fetched or checked. */
export function unknownOutcome(message: string): Classification {
  return { reason: 'unknown', httpStatus: 0, message, redirectsTo: null };
}

/** The outcome of a URL a target's rules keep from being fetched (deny_patterns, robots.txt). */
export function skippedOutcome(message: string): Classification {
  return { reason: 'skipped', httpStatus: 0, message, redirectsTo: null };
}

/** Why a page found was not fetched once its target reached max_pages. */
export function maxPagesMessage(maxPages: number): string {
  return `not fetched: max_pages (${maxPages}) reached`;
}
