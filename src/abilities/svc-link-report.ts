// svc/link-report: the broken-link report in the ability form; wraps svc_get_link_report() (15-minute cache).
import { z } from 'zod';
import { findTarget } from '../model/site-urls.js';
import { defineAbility } from './define.js';
import { toAbilityLinkReport } from './forms.js';
import { AbilityLinkReportSchema } from './schemas.js';
import { REPORT_LIMIT } from '../model/limits.js';

export const svcLinkReport = defineAbility({
  name: 'svc/link-report',
  label: 'Get the broken-link report',
  description:
    'Lists the problem links the crawler found on this site: links answered as missing (not_found), forbidden, failing (server_error), ' +
    'redirected (with redirects_to, the final URL), or not fetched because a crawl stopped early (unknown). Returns a summary count per ' +
    'reason, a flat list of links (page, link, http_status, reason, message, redirects_to), the crawler targets, truncated, and ' +
    'last_full_crawl (when the last completed full crawl finished). Reading it sends no requests to the site. At most `limit` links ' +
    `(${REPORT_LIMIT.min}-${REPORT_LIMIT.max}, default ${REPORT_LIMIT.default}); truncated is true when there were more. Filter to one host with target. Cached up to 15 minutes; pass ` +
    'refresh: true for fresh data (e.g. right after a crawl). To tell a site without broken links from a target that does not track ' +
    'all links, check targets[].link_tracking: only "all" reports every link ("pdf" tracks only PDF links).',
  capability: 'manage_options',
  annotations: { readonly: true, destructive: false, idempotent: true },
  inputSchema: z
    .object({
      target: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(260).optional().describe('Only this target host (host or host:port), e.g. "example.org".'),
      limit: z
        .number({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(REPORT_LIMIT.min, `must be at least ${REPORT_LIMIT.min}`)
        .max(REPORT_LIMIT.max, `must be at most ${REPORT_LIMIT.max}`)
        .default(REPORT_LIMIT.default)
        .describe(`Maximum number of links returned, ${REPORT_LIMIT.min}-${REPORT_LIMIT.max}.`),
      refresh: z.boolean({ error: 'must be true or false' }).optional().describe('true: read fresh data instead of the up to 15-minute-old cache.'),
    })
    .strict()
    .default({ limit: REPORT_LIMIT.default }),
  outputSchema: AbilityLinkReportSchema,
  checkInput(input, deps, check) {
    if (input.target === undefined || !deps.targets.length || findTarget(input.target, deps.targets)) return [];
    const list = check.revealTargets ? ` (${deps.targets.map((t) => t.host).join(', ')})` : '';
    return [{ path: 'target', message: `"${input.target}" is not a configured target${list}` }];
  },
  async run(input, { deps }) {
    const report = await deps.fns.svc_get_link_report({ target: input.target?.toLowerCase(), limit: input.limit, refresh: input.refresh });
    return toAbilityLinkReport(report);
  },
});
