// The zod schemas the abilities share. Written once; every published JSON Schema is z.toJSONSchema of these.
import { z } from 'zod';
import { CRAWL_MODES, CRAWL_STATUSES, REPORT_STATUSES } from '../model/types.js';

/** search_params: the one schema the search engine itself validates with. */
export { SearchParamsSchema } from '../model/search-params.js';

export { PageUrlSchema } from '../backend/contract.js';

import { CustomFieldSchema } from '../model/search-results.js';

export { CustomFieldSchema, SearchResultsSchema } from '../model/search-results.js';
import { REPORT_REASONS } from '../model/link-reasons.js';

/** Most entries in the link report's top_links. */
export const TOP_LINKS_MAX = 20;

/** A count or an id: a whole number, never negative (z.int() alone publishes minimum -2^53+1). */
const countSchema = () => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** What the search index holds of a page. */
const PageIndexSchema = z.object({
  indexed: z
    .boolean()
    .describe('A crawl stored this page and indexed its text. false for a page no crawl has seen yet.'),
  in_search: z.boolean().describe('The page can appear in search results now: indexed, and not hidden from search.'),
  last_crawled: z.string().nullable().describe('When a crawl last stored the page (ISO 8601); null when none has.'),
});

export const PageMetaSchema = z.object({
  showInSearch: z.boolean(),
  title: z.string(),
  url: z.string(),
  created: z.string().nullable(),
  modified: z.string().nullable(),
  language: z.string().nullable(),
  tags: z.array(z.string()),
  customFields: z.record(z.string(), CustomFieldSchema),
  superwords: z.array(z.string()),
  contentNoHighlight: z.string().optional(),
  description: z.string().optional(),
  index: PageIndexSchema.describe(
    'What the search index holds of the page now. showInSearch is what the post asks for; index says whether a crawl has put it there.',
  ),
});

/** The end of every crawl ability's description: how to see the crawl through. */
export const FOLLOW_CRAWL =
  'Follow the crawl with svc/get-crawl (its id, wait_seconds up to 60) until status is completed, stopped or failed. Over stdio the ' +
  'crawl runs inside the `svc mcp` process: a client that exits stops it, so call svc/get-crawl with wait_seconds to keep it busy until the end.';

/** A crawl record in the ability form (snake_case). */
export const CrawlRecordSchema = z.object({
  id: countSchema().min(1),
  mode: z.enum(CRAWL_MODES),
  status: z
    .enum(CRAWL_STATUSES)
    .describe(
      'queued or running until the crawl ends as completed, stopped or failed; follow it with the get-crawl ability (MCP tool svc-get-crawl) and wait_seconds.',
    ),
  urls: z.array(z.string()).nullable().describe('The URLs of a manual crawl; null for full and partial crawls.'),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable().describe('When it ended; null while it is queued or running.'),
  report_ready_at: z
    .string()
    .nullable()
    .describe('When its link report was final; null until then. Its search index is built after it.'),
  indexed_at: z
    .string()
    .nullable()
    .describe('When its pages were in the search index; search answers from the previous index until then.'),
  stats: z.object({
    pages: countSchema().describe('Pages the crawl stored.'),
    links: countSchema().describe('Distinct link URLs the crawl gave an outcome.'),
    errors: countSchema().describe('Of links: the broken ones (not_found, forbidden, server_error), blocks left out.'),
    problem_links: countSchema()
      .nullable()
      .describe(
        'Distinct link URLs the link report held with a problem reason when this crawl made it final; null until then.',
      ),
    occurrences: countSchema().nullable().describe('The (page, link) pairs of those problem links; null until then.'),
    targets: z.record(z.string(), z.object({ pages: countSchema(), cut_by_max_pages: z.boolean() })).optional(),
  }),
  error: z.string().nullable().describe('Why it failed or stopped, when known.'),
});

export const LinkReasonSchema = z.enum(REPORT_REASONS as [string, ...string[]]);

/** The link report, ability form. */
const TallySchema = z.object({
  problem_links: countSchema().describe('Distinct link URLs.'),
  occurrences: countSchema().describe('Their (page, link) pairs.'),
});

export const AbilityLinkReportSchema = z.object({
  status: z
    .enum(REPORT_STATUSES)
    .describe(
      'ready, or not_crawled: no crawl has stored a page of the targets (nor found them unreachable), so an empty report says nothing about the site.',
    ),
  counts: TallySchema.extend({
    pages: countSchema().describe('Pages of the targets stored now.'),
    reasons: z.object(
      Object.fromEntries(REPORT_REASONS.map((r) => [r, TallySchema])) as Record<string, typeof TallySchema>,
    ),
  }).describe(
    'pages; problem_links (distinct problem link URLs) and occurrences (their page, link pairs), in total and per reason, whatever the limit.',
  ),
  summary: z
    .object({
      not_found: countSchema(),
      forbidden: countSchema(),
      server_error: countSchema(),
      redirect: countSchema(),
      unknown: countSchema(),
    })
    .describe(
      'Occurrences (page, link pairs) per reason, whatever the limit (counts.reasons has the distinct links too); 0 for reasons left out by the reasons filter; with since, only those first seen after it.',
    ),
  links: z.array(
    z.object({
      page: z.string().describe('The page the link was found on.'),
      link: z.string().describe('The link URL.'),
      http_status: countSchema().describe('0 when no response came.'),
      reason: LinkReasonSchema,
      message: z.string(),
      redirects_to: z.string().nullable().describe('Final URL of the redirect chain; null when not a redirect.'),
      element: z
        .string()
        .describe(
          'The element the link was found in: a, area, img, source, script, link, iframe, video, audio, track, embed, or css.',
        ),
      text: z.string().describe('The anchor text or alt text (at most 100 characters); empty when there is none.'),
      blocked: z
        .boolean()
        .describe('The answer was a bot or rate-limit block (status 999, a challenge page), not real breakage.'),
      first_seen: z
        .string()
        .nullable()
        .describe(
          'When the crawl that first found this problem (this link on this page, with this reason) ended; null while that crawl still runs.',
        ),
    }),
  ),
  targets: z.array(
    z.object({
      host: z.string(),
      link_tracking: z.string(),
      walk_links: z.boolean(),
      last_crawl_error: z
        .string()
        .nullable()
        .describe('Why the latest crawl could not reach this target (e.g. connection refused), or null.'),
      pages: countSchema()
        .nullable()
        .describe('Pages of this target stored now (null when a remote service does not say).'),
    }),
  ),
  top_links: z
    .array(
      z.object({
        link: z.string().describe('The problem URL.'),
        reason: LinkReasonSchema,
        http_status: countSchema().describe('0 when no response came.'),
        pages: countSchema().min(1).describe('How many pages carry the link (the whole report, whatever the limit).'),
      }),
    )
    .max(TOP_LINKS_MAX)
    .describe(
      `Up to ${TOP_LINKS_MAX} distinct problem URLs, most pages first: fixing these first fixes the most pages. Counted over the whole report, whatever the limit.`,
    ),
  truncated: z.boolean(),
  next_cursor: z
    .string()
    .nullable()
    .describe('Give it as cursor (with the same target, reasons and since) for the next links; null on the last page.'),
  last_full_crawl: z.string().nullable(),
  notice: z
    .string()
    .optional()
    .describe('What to do next when the report cannot be complete yet (no completed crawl, or one still running).'),
});
