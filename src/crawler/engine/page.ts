// One page of a target, fetched: asked for with its stored validators, its outcome recorded (and what it says of
// its target being there), then kept as stored, dropped, or stored anew (under the end of its redirects when they
// stay within the target), parsed on this thread or a parser thread.
import { classify, statusText, type Classification } from '../classify.js';
import { stylesheetLinks } from '../css.js';
import type { ExtractedPage } from '../html/extractor.js';
import { conditionalHeaders } from '../revisit.js';
import { normalizeUrl, overlongUrl } from '../urls.js';
import type { CrawlContext } from './context.js';
import { recordOutcome, withAccept } from './outcomes.js';
import { PageBody } from './page-body.js';
import { keepPage, revisitOf, storeDocument, storeHtmlPage, type FetchedPage } from './page-store.js';
import type { TargetRun } from './target.js';

/** conditional: false when a stored page's links could not be replayed after a 304 (fetched again, in full). */
export async function crawlPage(ctx: CrawlContext, run: TargetRun, url: string, conditional = true): Promise<void> {
  const config = run.config;
  // Asked for with its validators when the store holds it: a 304 keeps it as it is.
  const prior = conditional ? await revisitOf(ctx, run, url) : null;
  const validators = prior ? conditionalHeaders(prior) : undefined;
  const extract = {
    contentSelector: config.content_selector,
    titleSelector: config.title_selector,
    anchors: ctx.fragments !== null,
    css: run.css,
  };
  const body = new PageBody(run, url, prior, extract, ctx.parser.threaded);
  const res = await ctx.fetcher.fetch(url, {
    timeoutMs: config.request_timeout_ms,
    signal: ctx.signal,
    headers: validators,
    onResponse: body.onResponse,
    // A redirect to a page this crawl has is not followed: that page is fetched once, as itself.
    known: (next) => crawlHas(ctx, run, url, next),
    retry: run.rules.retry.count ? run.rules.retry : undefined,
  });
  if (body.redirectedTo !== null) body.before = await revisitOf(ctx, run, body.redirectedTo, false);
  // A 304 to our own validators: the stored page stands, and so does its outcome.
  const notModified =
    prior !== null && validators !== undefined && res.ok && res.status === 304 && res.hops.length === 0;
  const outcome: Classification = notModified
    ? { reason: 'ok', httpStatus: prior.httpStatus, message: statusText(prior.httpStatus), redirectsTo: null }
    : withAccept(ctx, res.finalUrl, classify(res));
  if (run.tracks(url)) recordOutcome(ctx, url, outcome);
  const aborted = !res.ok && res.failure === 'aborted';
  if (run.seeds.has(url) && !aborted) {
    if (res.ok && res.status < 500) run.seedReached = true;
    else run.failure ??= `${url}: ${outcome.message}`;
  }
  if (aborted) return;
  if (notModified) {
    if (keepPage(ctx, { run, url, requested: url, res }, prior, 'notModified')) return;
    // Its links cannot be replayed: fetch it again without validators (its outcome is recorded again, the same).
    return crawlPage(ctx, run, url, false);
  }

  if (!res.ok || res.status < 200 || res.status >= 300) {
    // A page that answers with a transient failure keeps its stored copy; one that is gone or moved loses it.
    if (outcome.reason === 'server_error' || outcome.reason === 'skipped') ctx.writer.touch(url);
    else if (ctx.options.mode !== 'full') ctx.writer.remove(url);
    return;
  }

  const final = normalizeUrl(res.finalUrl);
  let pageUrl = url;
  if (final && final !== url) {
    // Redirected: the original URL is no longer a page; the target of the chain may be one.
    if (ctx.options.mode !== 'full') ctx.writer.remove(url);
    const canonical = run.canon(final);
    if (!canonical || !run.owns(canonical) || run.seen.has(canonical) || run.refusal(canonical)) return;
    if (overlongUrl(canonical)) return;
    run.seen.add(canonical);
    // Another worker of a shared crawl may have it (or be fetching it): then it is theirs to store.
    if (ctx.shared && !(await ctx.shared.crawl.take(canonical, run.host))) return;
    ctx.decided.add(canonical);
    if (run.tracks(canonical))
      recordOutcome(
        ctx,
        canonical,
        classify({ ok: true, url: canonical, finalUrl: canonical, status: res.status, hops: [] }),
      );
    pageUrl = canonical;
  }
  const page: FetchedPage = { run, url: pageUrl, requested: url, res };
  const bodyHash = body.hash?.digest('base64url') ?? null;
  // The same body (and shaping headers) as the stored page: kept as it is, neither parsed nor indexed again.
  if (bodyHash && body.before?.bodyHash === bodyHash && keepPage(ctx, page, body.before, 'unchanged')) return;
  if (body.stylesheet) {
    // A stylesheet: stored as a document (never searched) with the links it holds.
    const links = stylesheetLinks(Buffer.concat(body.stylesheet.chunks).toString('utf8'), body.stylesheet.url);
    storeDocument(ctx, page, bodyHash, links);
    return;
  }
  let extracted: ExtractedPage | null = body.streamed?.page ?? null;
  let parsed = true;
  if (body.collected) {
    const collected = body.collected;
    try {
      extracted = await ctx.parser.parse(collected.chunks, collected.contentType, { url: collected.url, ...extract });
    } catch (err) {
      if (ctx.signal.aborted) return;
      parsed = false;
      ctx.logger.warn({ err, url: pageUrl }, 'page could not be parsed: stored without text or links');
    }
  }
  // A page that could not be parsed is never kept for what it holds: the next crawl tries again.
  if (extracted) storeHtmlPage(ctx, page, extracted, parsed ? bodyHash : null);
  else storeDocument(ctx, page, parsed ? bodyHash : null);
}

/** Whether a redirect's next URL is another page of run this crawl has (seen here, or in the shared frontier). */
async function crawlHas(ctx: CrawlContext, run: TargetRun, url: string, next: string): Promise<boolean> {
  const final = normalizeUrl(next);
  const canonical = final ? run.canon(final) : null;
  if (!canonical || canonical === url || !run.owns(canonical)) return false;
  if (run.seen.has(canonical)) return true;
  return ctx.shared ? ctx.shared.crawl.has(canonical) : false;
}
