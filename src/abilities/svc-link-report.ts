// svc/link-report: the broken-link report in the ability form; wraps svc_get_link_report() (15-minute cache).
import { z } from 'zod';
import { findTarget } from '../model/site-urls.js';
import { defineAbility } from './define.js';
import { reportNotice, toAbilityLinkReport } from './rest-to-ability.js';
import { AbilityLinkReportSchema, LinkReasonSchema } from './schemas.js';
import { REPORT_REASONS, type LinkReason } from '../model/link-reasons.js';
import { latestCrawlOrNull } from './svc-get-crawl.js';
import { REPORT_LIMIT, REPORT_TOOL_LIMIT_DEFAULT } from '../model/limits.js';
import { normalizeSince, SINCE_RULE } from '../model/history.js';

export const svcLinkReport = defineAbility({
  name: 'svc/link-report',
  label: 'Get the broken-link report',
  description:
    'Lists the problem links the crawler found on this site (status not_crawled: no crawl has stored a page of the targets yet, so an empty answer is not an all-clear): links answered as missing (not_found), forbidden, failing (server_error), ' +
    'redirected (with redirects_to, the final URL), or not fetched because a crawl stopped early (unknown). Returns a summary count per ' +
    'reason, a flat list of links (page, link, http_status, reason, message, redirects_to), top_links (up to 20 distinct problem URLs ' +
    'with the number of pages carrying each over the whole report, most pages first: fix those first), counts (pages, problem_links, occurrences), the crawler targets, truncated, ' +
    'last_full_crawl (when the last completed full crawl finished), and a notice with the next step when no full crawl has ' +
    'completed yet or one is still running. Each link has first_seen: when the crawl that first found the problem ended. Filter with reasons, ' +
    'e.g. ["not_found"], and with since (ISO time) for the problems first seen after it. Reading it sends no requests to the site. At most `limit` links ' +
    `(${REPORT_LIMIT.min}-${REPORT_LIMIT.max}, default ${REPORT_TOOL_LIMIT_DEFAULT}) in report order; summary counts them all. When next_cursor is not null, call again with ` +
    'cursor set to it (and the same target, reasons and since) for the next links. Filter to one host with target. Cached up to 15 minutes; pass ' +
    'refresh: true for fresh data (e.g. right after a crawl). To tell a site without broken links from a target that does not track ' +
    'all links, check targets[].link_tracking: only "all" reports every link ("pdf" tracks only PDF links).',
  capability: 'manage_options',
  annotations: { readonly: true, destructive: false, idempotent: true },
  inputSchema: z
    .object({
      target: z
        .string({ error: 'must be a string' })
        .min(1, 'must not be empty')
        .max(260)
        .optional()
        .describe('Only this target host (host or host:port), e.g. "example.org".'),
      limit: z
        .number({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(REPORT_LIMIT.min, `must be at least ${REPORT_LIMIT.min}`)
        .max(REPORT_LIMIT.max, `must be at most ${REPORT_LIMIT.max}`)
        .default(REPORT_TOOL_LIMIT_DEFAULT)
        .describe(`Maximum number of links returned, ${REPORT_LIMIT.min}-${REPORT_LIMIT.max}.`),
      cursor: z
        .string({ error: 'must be a string' })
        .min(1, 'must not be empty')
        .max(4000, 'must be at most 4000 characters')
        .optional()
        .describe('next_cursor of the previous answer: the links after those.'),
      refresh: z
        .boolean({ error: 'must be true or false' })
        .optional()
        .describe('true: read fresh data instead of the up to 15-minute-old cache.'),
      reasons: z
        .array(LinkReasonSchema, { error: `must be an array of reasons (${REPORT_REASONS.join(', ')})` })
        .min(1, 'must list at least 1 reason')
        .max(REPORT_REASONS.length)
        .optional()
        .describe(
          `Only links of these reasons (${REPORT_REASONS.join(', ')}); all when absent. e.g. ["not_found", "server_error"] for the broken ones.`,
        ),
      since: z
        .string({ error: `must be a string: ${SINCE_RULE}` })
        .refine((s) => normalizeSince(s) !== null, { error: SINCE_RULE })
        .optional()
        .describe(
          'Only problems first seen after this time (ISO 8601, e.g. "2026-11-23T08:00:00Z"): what broke since then. summary then counts only those.',
        ),
    })
    .strict()
    .default({ limit: REPORT_TOOL_LIMIT_DEFAULT }),
  outputSchema: AbilityLinkReportSchema,
  checkInput(input, deps, check) {
    if (input.target === undefined || !deps.targets.length || findTarget(input.target, deps.targets)) return [];
    const list = check.revealTargets ? ` (${deps.targets.map((t) => t.host).join(', ')})` : '';
    return [{ path: 'target', message: `"${input.target}" is not a configured target${list}` }];
  },
  async run(input, { deps }) {
    const reasons = input.reasons as LinkReason[] | undefined;
    const since = input.since === undefined ? undefined : normalizeSince(input.since)!;
    const report = await deps.fns.svc_get_link_report({
      target: input.target?.toLowerCase(),
      limit: input.limit,
      refresh: input.refresh,
      reasons,
      since,
      cursor: input.cursor,
    });
    const out = toAbilityLinkReport(report);
    const notice = reportNotice(report.lastFullCrawl, await latestCrawlOrNull(deps), report.status);
    return notice ? { ...out, notice } : out;
  },
});
