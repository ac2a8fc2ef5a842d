// The zod schemas of /v1: they validate requests in the facade, check answers in the remote client, and are
// the source of the OpenAPI document (openapi.ts). One definition per shape.
import { z } from 'zod';
import { SearchResultsSchema as SearchResultsShape } from '../model/search-results.js';
import { SearchParamsSchema, SearchTermsSchema } from '../model/search-params.js';
import {
  CRAWL_MODES,
  CRAWL_STATUSES,
  CRAWL_TRIGGERS,
  REPORT_STATUSES,
  type CrawlRecord,
  type DeletePagesResult,
  type LinkReport,
  type PageIndexState,
} from '../model/types.js';
import { DELETE_URLS_MAX, REPORT_LIMIT, SEARCH_TERMS_MAX_CHARS, SEARCH_TERMS_MAX_WORDS } from '../model/limits.js';
import { REPORT_REASONS, type LinkReason } from '../model/link-reasons.js';
import type { ScheduleInfo } from '../model/schedule.js';
import { normalizeSince, SINCE_RULE, type CrawlChanges } from '../model/history.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENTS, type WebhookDelivery } from '../model/webhooks.js';
import { SEARCH_STATS_LIMIT, STATS_SINCE_RULE, type SearchStats } from '../model/search-stats.js';
import { PageUrlSchema } from './crawl-request-schema.js';

export { CrawlRequestSchema, PageUrlSchema } from './crawl-request-schema.js';

const intRange = (min: number, max: number) => {
  const error = `must be an integer from ${min} to ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
};

// ---- requests (the crawl request's schema is in crawl-request-schema.ts) -----------------------------------

export const CrawlListQuerySchema = z
  .object({
    limit: intRange(1, 100).default(20).meta({ description: 'Records per page, newest first.' }),
    offset: intRange(0, 1_000_000_000).default(0).meta({ description: 'Records to skip.' }),
  })
  .strict();

export const LinkReportQuerySchema = z
  .object({
    target: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .meta({ description: 'Only pages of this configured target host (host or host:port).' }),
    limit: intRange(REPORT_LIMIT.min, REPORT_LIMIT.max)
      .default(REPORT_LIMIT.default)
      .meta({ description: 'Most links returned, across all sections in report order.' }),
    reasons: z
      .string()
      .regex(new RegExp(`^(${REPORT_REASONS.join('|')})(,(${REPORT_REASONS.join('|')}))*$`), {
        error: `must be a comma-separated list of ${REPORT_REASONS.join(', ')}`,
      })
      .transform((s) => [...new Set(s.split(','))] as LinkReason[])
      .optional()
      .meta({
        description: `Only these reasons, comma separated (${REPORT_REASONS.join(', ')}); the other sections are empty (count 0).`,
      }),
    since: z
      .string()
      .refine((s) => normalizeSince(s) !== null, { error: SINCE_RULE })
      .optional()
      .meta({
        description: 'Only problems first seen after this time (ISO 8601); section counts then count only those.',
      }),
    cursor: z
      .string()
      .min(1)
      .max(4000)
      .optional()
      .meta({ description: 'next_cursor of the previous answer: the links after those (counts stay the totals).' }),
  })
  .strict();

export const WebhookDeliveryListQuerySchema = CrawlListQuerySchema;

export const SearchStatsQuerySchema = z
  .object({
    since: z
      .string()
      .refine((s) => normalizeSince(s) !== null, { error: STATS_SINCE_RULE })
      .optional()
      .meta({
        description:
          'Searches from this time on (ISO 8601 date or date-time, not in the future); default, and at the earliest, the start of the retention window (search_stats.retention_days ago).',
      }),
    limit: intRange(SEARCH_STATS_LIMIT.min, SEARCH_STATS_LIMIT.max)
      .default(SEARCH_STATS_LIMIT.default)
      .meta({ description: 'Most entries of top_queries and of no_result_queries each.' }),
  })
  .strict();

export const PageStateQuerySchema = z
  .object({ url: PageUrlSchema.meta({ description: 'The page URL, as a post or a link names it.' }) })
  .strict();

export const SearchRequestSchema = z
  .object({
    terms: SearchTermsSchema.meta({
      description: `Words (implicit AND, the last also as a prefix) and "quoted phrases"; at most ${SEARCH_TERMS_MAX_CHARS} characters and ${SEARCH_TERMS_MAX_WORDS} words.`,
    }),
    params: SearchParamsSchema.optional(),
    search_params: SearchParamsSchema.optional().meta({
      description: 'The same as params (the name the ability uses); give one of the two.',
    }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.params !== undefined && body.search_params !== undefined)
      ctx.addIssue({ code: 'custom', path: ['search_params'], message: 'give params or search_params, not both' });
  })
  .meta({ title: 'SearchRequest' });

export const DeletePagesRequestSchema = z
  .object({
    urls: z
      .array(
        z
          .string({ error: 'must be a string' })
          .min(1, { error: 'must not be empty' })
          .max(4096, { error: 'must be at most 4096 characters' }),
        {
          error: (iss) =>
            iss.input === undefined
              ? `is required: an array of 1 to ${DELETE_URLS_MAX} URLs`
              : 'must be an array of URLs',
        },
      )
      .min(1, { error: `must list 1 to ${DELETE_URLS_MAX} URLs` })
      .max(DELETE_URLS_MAX, { error: `must list 1 to ${DELETE_URLS_MAX} URLs` }),
  })
  .strict()
  .meta({ title: 'DeletePagesRequest' });

// ---- answers --------------------------------------------------------------------------------------------

/** A count or an id: never negative. */
const count = () => z.int().min(0);

const ProblemTallySchema = z.object({
  problemLinks: count().meta({ description: 'Distinct link URLs with this outcome.' }),
  occurrences: count().meta({ description: 'The (page, link) pairs of those links.' }),
});

/** The counts of docs/index.md's glossary: pages, problem links and occurrences, per reason and in total. */
export const ReportCountsSchema = ProblemTallySchema.extend({
  pages: count().meta({ description: 'Pages of the shown targets stored now.' }),
  reasons: z.object(
    Object.fromEntries(REPORT_REASONS.map((r) => [r, ProblemTallySchema])) as Record<
      LinkReason,
      typeof ProblemTallySchema
    >,
  ),
});

const CrawlStatsSchema = z.object({
  pages: count().meta({ description: 'Pages the crawl stored.' }),
  links: count().meta({ description: 'Distinct link URLs the crawl gave an outcome.' }),
  errors: count().meta({
    description: 'Of links: the broken ones (not_found, forbidden, server_error), blocks left out.',
  }),
  problemLinks: count().optional().meta({
    description:
      'Distinct link URLs the link report held with a problem reason when this crawl made it final (every configured target); absent until then.',
  }),
  occurrences: count().optional().meta({ description: 'The (page, link) pairs of those problem links.' }),
  reasons: ReportCountsSchema.shape.reasons
    .optional()
    .meta({ description: 'problemLinks and occurrences per reason.' }),
  notModified: count().optional(),
  unchanged: count().optional(),
  retries: count().optional(),
  targets: z
    .record(
      z.string(),
      z.object({
        pages: count(),
        cutByMaxPages: z.boolean(),
        walkLinks: z.boolean().optional(),
        unreachable: z.boolean().optional(),
        error: z.string().optional(),
      }),
    )
    .optional(),
});

export const CrawlRecordSchema = z
  .object({
    id: count(),
    mode: z.enum(CRAWL_MODES),
    status: z.enum(CRAWL_STATUSES),
    // An older service does not send it: a request then.
    trigger: z.enum(CRAWL_TRIGGERS).default('request').meta({
      description:
        'Who asked for it: request (a person or program: REST, ability, CLI), schedule:full, schedule:partial or live_update (queued, run in turn).',
    }),
    urls: z.array(z.string()).optional(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    reportReadyAt: z.string().nullable().optional().meta({
      description:
        'When its link report was final; null until then. The search index is built after it (see indexedAt).',
    }),
    indexedAt: z.string().nullable().optional().meta({
      description: 'When its pages were in the search index; search answers from the previous index until then.',
    }),
    stats: CrawlStatsSchema,
    error: z.string().optional(),
  })
  .meta({ title: 'CrawlRecord' }) satisfies z.ZodType<CrawlRecord>;

const ScheduleEntrySchema = z
  .object({
    cron: z
      .string()
      .meta({ description: 'The cron expression (5 fields, or 6 with seconds first; server local time).' }),
    nextRun: z.string().nullable().meta({ description: 'Its next run (ISO 8601), or null when it has none.' }),
    lastRun: z.string().nullable().meta({ description: 'When it last queued a crawl (ISO 8601), or null.' }),
  })
  .nullable();

export const ScheduleSchema = z
  .object({
    full: ScheduleEntrySchema,
    partial: ScheduleEntrySchema,
    // An older service does not say: its schedule is always the config's.
    source: z.enum(['config', 'stored']).default('config').meta({
      description:
        "Where the schedule in force comes from: config (the config file), or stored (set by PUT …/schedule, svc schedule set or the console; it replaces the config's until cleared).",
    }),
    setAt: z
      .string()
      .nullable()
      .default(null)
      .meta({ description: "When the stored schedule was set (ISO 8601); null for the config's." }),
  })
  .meta({
    title: 'Schedule',
    description: 'The crawl schedules in force; null for a kind that has none.',
  }) satisfies z.ZodType<ScheduleInfo>;

export const CrawlListSchema = z
  .object({ crawls: z.array(CrawlRecordSchema), limit: count(), offset: count() })
  .meta({ title: 'CrawlList' });

const ReportLinkSchema = z.object({
  url: z.string(),
  httpStatus: count(),
  message: z.string(),
  redirectsTo: z.string().optional(),
  element: z.string().meta({
    description:
      'The element the link was found in: a, area, img, source, script, link, iframe, video, audio, track, embed, or css (a stylesheet, <style> or style="").',
  }),
  text: z
    .string()
    .meta({ description: 'The anchor text or alt text, at most 100 characters; empty when there is none.' }),
  blocked: z.literal(true).optional().meta({
    description:
      'Present when the answer was a bot or rate-limit block (status 999, a challenge page), not real breakage.',
  }),
  firstSeen: z.string().optional().meta({
    description: 'When the crawl that first found this problem ended (ISO 8601); absent while that crawl runs.',
  }),
});
const ReportSectionSchema = z.object({
  count: count().meta({ description: 'Full number of links in this section, whatever the limit.' }),
  pages: z.array(
    z.object({
      url: z.string().meta({ description: 'The page the links were found on.' }),
      links: z.array(ReportLinkSchema),
    }),
  ),
});

export const LinkReportSchema = z
  .object({
    // An older service does not send it: ready then (it had no other answer).
    status: z.enum(REPORT_STATUSES).default('ready').meta({
      description:
        'ready, or not_crawled: no crawl has stored a page of the targets (nor found them unreachable), so the empty sections say nothing about the site.',
    }),
    // An older service does not send them: the remote client counts what the answer holds.
    counts: ReportCountsSchema.optional().meta({
      description:
        'pages, problemLinks (distinct link URLs with a problem reason) and occurrences (their page–link pairs), in total and per reason, whatever the limit; with since, only the problems first seen after it.',
    }),
    // An older service does not send them: the remote client counts what the answer holds.
    topLinks: z
      .array(
        z.object({
          url: z.string(),
          reason: z.enum(REPORT_REASONS as [LinkReason, ...LinkReason[]]),
          httpStatus: count(),
          pages: count().meta({ description: 'Pages carrying the link, over the whole report.' }),
        }),
      )
      .optional()
      .meta({
        description:
          'The problem links on the most pages, most first (then report order, then URL), counted over the whole report whatever the limit; at most 100.',
      }),
    notFound: ReportSectionSchema,
    forbidden: ReportSectionSchema,
    serverError: ReportSectionSchema,
    redirect: ReportSectionSchema,
    unknown: ReportSectionSchema,
    targets: z.array(
      z.object({
        host: z.string(),
        linkTracking: z.enum(['pdf', 'all']),
        walkLinks: z.boolean(),
        // An older service does not send it: null then.
        lastCrawlError: z
          .string()
          .nullable()
          .default(null)
          .describe('Why the latest crawl could not reach this target, or null.'),
        // An older service does not send it: null then (not known).
        pages: count()
          .nullable()
          .default(null)
          .meta({ description: 'Pages of this target stored now (null from an older service, which does not say).' }),
      }),
    ),
    truncated: z.boolean().meta({ description: 'True when links were left out because of the limit.' }),
    lastFullCrawl: z
      .string()
      .nullable()
      .meta({ description: 'When the last completed full crawl finished (ISO 8601).' }),
    next_cursor: z.string().nullable().optional().meta({
      description:
        'Give it as cursor (with the same target, reasons and since) for the links after these; null on the last page.',
    }),
  })
  .meta({ title: 'LinkReport' }) satisfies z.ZodType<
  Omit<LinkReport, 'counts' | 'topLinks'> & Partial<Pick<LinkReport, 'counts' | 'topLinks'>>
>;

const ChangeLinkSchema = ReportLinkSchema.extend({
  page: z.string().meta({ description: 'The page the link is on.' }),
  reason: z.enum(REPORT_REASONS as [LinkReason, ...LinkReason[]]),
  firstSeen: z.string().meta({ description: 'When the crawl that first found this problem ended (ISO 8601).' }),
});

export const CrawlChangesSchema = z
  .object({
    since: z.string().nullable().meta({
      description: 'finishedAt of the previous completed full crawl before this crawl; null when there was none.',
    }),
    new: z
      .array(ChangeLinkSchema)
      .meta({ description: 'Problems in the report after this crawl that were not in it after the since crawl.' }),
    fixed: z.array(ChangeLinkSchema).meta({
      description:
        'Problems in the report after the since crawl that are not in it after this crawl (as they were then).',
    }),
  })
  .meta({ title: 'CrawlChanges' }) satisfies z.ZodType<CrawlChanges>;

export const WebhookDeliverySchema = z
  .object({
    id: z.string().meta({ description: 'Sent as the webhook-id header (and the deprecated X-Svc-Delivery).' }),
    event: z.enum(WEBHOOK_EVENTS),
    url: z.string(),
    crawl: count().nullable(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: count(),
    lastError: z.string().nullable(),
    nextAttemptAt: z.string().nullable().meta({ description: 'When the next attempt is due (pending deliveries).' }),
    createdAt: z.string(),
    deliveredAt: z.string().nullable(),
  })
  .meta({ title: 'WebhookDelivery' }) satisfies z.ZodType<WebhookDelivery>;

export const WebhookDeliveryListSchema = z
  .object({ deliveries: z.array(WebhookDeliverySchema), limit: count(), offset: count() })
  .meta({ title: 'WebhookDeliveryList' });

const SearchQueryCountSchema = z.object({
  terms: z
    .string()
    .meta({ description: 'As the search read them: folded words, "quoted phrases", identifiers joined.' }),
  searches: count().meta({ description: 'Searches of these terms (in no_result_queries: those that found nothing).' }),
  last_hits: count().meta({ description: 'Hits of the latest search of these terms.' }),
  last_searched: z.string().meta({ description: 'When these terms were last searched (ISO 8601).' }),
});

export const SearchStatsSchema = z
  .object({
    since: z.string().meta({ description: 'The start of the period (ISO 8601).' }),
    retention_days: count().meta({
      description: 'Days a search is kept (search_stats.retention_days); 0: none is recorded.',
    }),
    totals: z.object({
      searches: count().meta({ description: 'Searches recorded in the period.' }),
      no_result_searches: count().meta({ description: 'Of those, the searches that found no page.' }),
      queries: count().meta({ description: 'Distinct normalized terms searched.' }),
      no_result_queries: count().meta({ description: 'Distinct normalized terms of the searches that found nothing.' }),
    }),
    top_queries: z.array(SearchQueryCountSchema).meta({ description: 'Most searched terms first, at most limit.' }),
    no_result_queries: z
      .array(SearchQueryCountSchema)
      .meta({ description: 'Terms whose searches found nothing, most such searches first, at most limit.' }),
    days: z
      .array(
        z.object({
          day: z.string().meta({ description: 'YYYY-MM-DD (UTC).' }),
          searches: count(),
          no_results: count(),
        }),
      )
      .meta({ description: "Every UTC day from since's to today's, oldest first (zeros on days without a search)." }),
    limit: count(),
  })
  .meta({ title: 'SearchStats' }) satisfies z.ZodType<SearchStats>;

export const SearchResultsSchema = SearchResultsShape.meta({ title: 'SearchResults' });

export const DeletePagesResultSchema = z
  .object({ deleted: z.array(z.string()), notFound: z.array(z.string()) })
  .meta({ title: 'DeletePagesResult' }) satisfies z.ZodType<DeletePagesResult>;

export const PageIndexStateSchema = z
  .object({
    indexed: z.boolean().meta({ description: 'A crawl stored the page and indexed its text (HTML, not noindex).' }),
    inSearch: z
      .boolean()
      .meta({ description: 'The page can appear in search results: indexed and not hidden from search.' }),
    lastCrawled: z
      .string()
      .nullable()
      .meta({ description: 'When a crawl last stored the page (ISO 8601); null when none has.' }),
  })
  .meta({ title: 'PageIndexState' }) satisfies z.ZodType<PageIndexState>;

export const ErrorSchema = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .meta({ title: 'Error' });

export {
  PageContentQuerySchema,
  PageContentSchema,
  PageListQuerySchema,
  PageListSchema,
} from './page-contract.js';
