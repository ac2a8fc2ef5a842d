// The zod schemas the abilities share. Written once; every published JSON Schema is z.toJSONSchema of these.
import { z } from 'zod';
import { CRAWL_MODES, CRAWL_STATUSES } from '../model/types.js';

/** search_params: the one schema the search engine itself validates with. */
export { SearchParamsSchema } from '../model/search-params.js';

export { PageUrlSchema } from '../backend/contract.js';

import { CustomFieldSchema } from '../model/search-results.js';

export { CustomFieldSchema, SearchResultsSchema } from '../model/search-results.js';
import { REPORT_REASONS } from '../model/link-reasons.js';

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
});

/** A crawl record in the ability form (snake_case). */
export const CrawlRecordSchema = z.object({
  id: z.number().int(),
  mode: z.enum(CRAWL_MODES),
  status: z.enum(CRAWL_STATUSES).describe('queued or running right after the start; poll the /v1 crawls API or the link report for the result.'),
  urls: z.array(z.string()).nullable().describe('The URLs of a manual crawl; null for full and partial crawls.'),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  stats: z.object({
    pages: z.number().int(),
    links: z.number().int(),
    errors: z.number().int(),
    targets: z.record(z.string(), z.object({ pages: z.number().int(), cut_by_max_pages: z.boolean() })).optional(),
  }),
  error: z.string().nullable(),
});

export const LinkReasonSchema = z.enum(REPORT_REASONS as [string, ...string[]]);

/** The link report, ability form. */
export const AbilityLinkReportSchema = z.object({
  summary: z.object({
    not_found: z.number().int(),
    forbidden: z.number().int(),
    server_error: z.number().int(),
    redirect: z.number().int(),
    unknown: z.number().int(),
  }),
  links: z.array(
    z.object({
      page: z.string().describe('The page the link was found on.'),
      link: z.string().describe('The link URL.'),
      http_status: z.number().int().describe('0 when no response came.'),
      reason: LinkReasonSchema,
      message: z.string(),
      redirects_to: z.string().nullable().describe('Final URL of the redirect chain; null when not a redirect.'),
      element: z.string().describe('The element the link was found in: a, area, img, source, script, link, iframe, video, audio, track, embed, or css.'),
      text: z.string().describe('The anchor text or alt text (at most 100 characters); empty when there is none.'),
      blocked: z.boolean().describe('The answer was a bot or rate-limit block (status 999, a challenge page), not real breakage.'),
    }),
  ),
  targets: z.array(
    z.object({
      host: z.string(),
      link_tracking: z.string(),
      walk_links: z.boolean(),
      last_crawl_error: z.string().nullable().describe('Why the latest crawl could not reach this target (e.g. connection refused), or null.'),
    }),
  ),
  truncated: z.boolean(),
  last_full_crawl: z.string().nullable(),
});
