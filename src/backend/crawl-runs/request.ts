// What a crawl request may be, decided once for every surface (REST body, ability input, CLI, live update): pure
// checks against the configured targets, so every surface gives the same message for the same mistake.
import type { TargetConfig } from '../../model/config.js';
import { BackendError } from '../../model/errors.js';
import { MANUAL_URLS_MAX } from '../../model/limits.js';
import { checkSiteUrl } from '../../model/site-urls.js';
import type { CrawlMode } from '../../model/types.js';
import { issuesMessage } from '../../lib/zod-issues.js';
import { CrawlRequestSchema } from '../crawl-request-schema.js';

/**
 * The request as it came (REST body, ability input, CLI): the /v1 contract's schema, then every URL on a configured
 * target with its scheme. One validation for every surface, so every surface gives the same message.
 */
export function validateCrawlRequest(
  req: unknown,
  targets: readonly TargetConfig[],
): { mode: CrawlMode; urls?: string[] } {
  const parsed = CrawlRequestSchema.safeParse(req);
  if (!parsed.success) throw new BackendError('invalid_input', issuesMessage(parsed.error, 'body'));
  const { mode, urls } = parsed.data;
  requireTargets(targets);
  if (!urls) return { mode };
  return { mode, urls: checkCrawlUrls(urls, targets) };
}

/** A crawl needs a target: invalid_input saying how to configure one. */
export function requireTargets(targets: readonly TargetConfig[]): void {
  if (!targets.length)
    throw new BackendError(
      'invalid_input',
      'no crawl targets are configured: add "targets" to the config file, or pass --site URL',
    );
}

/** Every URL on a configured target, without its fragment, deduplicated; or invalid_input naming each bad one. */
export function checkCrawlUrls(urls: readonly string[], targets: readonly TargetConfig[]): string[] {
  const problems: string[] = [];
  const out: string[] = [];
  urls.forEach((u, i) => {
    const r = checkSiteUrl(u, targets);
    if (typeof r === 'string') {
      problems.push(`urls[${i}]: ${r}`);
      return;
    }
    r.hash = '';
    out.push(r.href);
  });
  if (problems.length)
    throw new BackendError(
      'invalid_input',
      problems.slice(0, 10).join('; ') + (problems.length > 10 ? `; … ${problems.length - 10} more` : ''),
    );
  return [...new Set(out)];
}

/**
 * What a waiting live-update crawl becomes when more URLs change: the union of its URLs and the new ones (first
 * seen first), or a full crawl when that is more than one manual crawl may list (or it is one already).
 */
export function mergeQueuedUrls(
  waiting: { mode: CrawlMode; urls?: readonly string[] },
  add: readonly string[],
  max = MANUAL_URLS_MAX,
): { mode: CrawlMode; urls?: string[] } {
  if (waiting.mode !== 'manual') return { mode: waiting.mode };
  const urls = [...new Set([...(waiting.urls ?? []), ...add])];
  return urls.length > max ? { mode: 'full' } : { mode: 'manual', urls };
}
