// svc/get-crawl: one crawl record (the latest by default), and with wait_seconds a wait for the crawl's end that
// reports progress meanwhile. How a caller sees a crawl it started through: every crawl ability answers at once.
import { z } from 'zod';
import { crawlEnded, type CrawlProgress, type CrawlRecord } from '../model/types.js';
import { countsPhrase } from '../model/counts.js';
import { defineAbility, type AbilityDeps } from './define.js';
import { crawlNotFound } from './errors.js';
import { toAbilityCrawlRecord } from './rest-to-ability.js';
import { CrawlRecordSchema } from './schemas.js';
import type { AbilityProgress } from './types.js';

/** Longest wait one call may ask for; a client that wants longer calls again. */
const WAIT_SECONDS_MAX = 60;

/** The latest crawl, or null when there is none or the backend cannot say (a hint must never fail its caller). */
export async function latestCrawlOrNull(deps: AbilityDeps): Promise<CrawlRecord | null> {
  try {
    return await deps.fns.svc_get_crawl(null);
  } catch {
    return null;
  }
}

/**
 * A crawl's live progress as the caller hears it, in the record's units: pages stored so far, or for a manual crawl
 * the URLs done of its URLs (a total only when it is known, and never passed); and one line.
 */
export function crawlProgress(rec: Pick<CrawlRecord, 'id' | 'mode' | 'urls'>, p: CrawlProgress): AbilityProgress {
  const total = rec.mode === 'manual' ? (rec.urls?.length ?? null) : null;
  const of = total === null ? '' : `${Math.min(p.pagesDone, total)} of ${total} URLs, `;
  return {
    done: total === null ? p.stats.pages : Math.min(p.pagesDone, total),
    total,
    queued: p.queued,
    message: `crawl ${rec.id}: ${of}${countsPhrase(p.stats)} so far, ${p.queued} queued (${Math.round(p.elapsedMs / 1000)} s)`,
  };
}

export const svcGetCrawl = defineAbility({
  name: 'svc/get-crawl',
  label: 'Get a crawl and wait for its end',
  description:
    'Returns a crawl record: id, mode, status (queued, running, completed, stopped or failed), urls, started_at, finished_at, stats ' +
    '(pages, links, errors) and error. Without id: the latest crawl. With wait_seconds (up to 60) it waits until the crawl ends or the ' +
    'time is up, whichever comes first, and answers the record then: call it again while status is still queued or running. Use it ' +
    'right after svc/full-crawl, svc/partial-crawl or svc/manual-crawl to see when the crawl is done, then read svc/link-report with ' +
    'refresh: true. While it waits it sends progress notifications (pages stored so far; a total only for a manual crawl, its URLs) when the request carries a progress token.',
  capability: 'manage_options',
  annotations: { readonly: true, destructive: false, idempotent: true },
  inputSchema: z
    .object({
      id: z
        .number({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .max(Number.MAX_SAFE_INTEGER)
        .optional()
        .describe('The crawl id, as the crawl abilities answer it; the latest crawl when absent.'),
      wait_seconds: z
        .number({ error: `must be a number of seconds from 0 to ${WAIT_SECONDS_MAX}` })
        .min(0, 'must be at least 0')
        .max(WAIT_SECONDS_MAX, `must be at most ${WAIT_SECONDS_MAX} (call again to wait longer)`)
        .optional()
        .describe(
          `Wait up to this many seconds (0-${WAIT_SECONDS_MAX}) for the crawl to end; 0 or absent answers at once.`,
        ),
    })
    .strict()
    .default({}),
  outputSchema: CrawlRecordSchema,
  async run(input, { deps, onProgress, signal }) {
    let rec = await deps.fns.svc_get_crawl(input.id ?? null);
    if (!rec)
      throw crawlNotFound(
        input.id ?? null,
        input.id === undefined ? null : ((await latestCrawlOrNull(deps))?.id ?? null),
      );
    const waitMs = Math.round((input.wait_seconds ?? 0) * 1000);
    if (waitMs > 0 && !crawlEnded(rec.status) && !signal?.aborted) {
      const started = rec;
      rec = await deps.fns.svc_wait_for_crawl(rec.id, {
        timeoutMs: waitMs,
        signal,
        onProgress: onProgress && ((p) => onProgress(crawlProgress(started, p))),
      });
    }
    return toAbilityCrawlRecord(rec);
  },
});
