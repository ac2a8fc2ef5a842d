// GET /v1/openapi.json: an OpenAPI 3.1 document generated from the same zod schemas that validate the requests.
import { z } from 'zod';
import {
  CrawlChangesSchema,
  CrawlListQuerySchema,
  CrawlListSchema,
  CrawlRecordSchema,
  CrawlRequestSchema,
  DeletePagesRequestSchema,
  DeletePagesResultSchema,
  ErrorSchema,
  LinkReportQuerySchema,
  LinkReportSchema,
  PageContentQuerySchema,
  PageContentSchema,
  PageIndexStateSchema,
  PageListQuerySchema,
  PageListSchema,
  PageStateQuerySchema,
  ScheduleSchema,
  SearchRequestSchema,
  SearchResultsSchema,
  SearchStatsQuerySchema,
  SearchStatsSchema,
  WebhookDeliveryListQuerySchema,
  WebhookDeliveryListSchema,
} from '../backend/contract.js';
import { ScheduleSetSchema } from '../model/schedule.js';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function queryParameters(schema: z.ZodObject): JsonSchema[] {
  const js = jsonSchema(schema, 'input') as { properties: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(js.properties).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return { name, in: 'query', required: js.required?.includes(name) ?? false, description, schema: rest };
  });
}

const json = (schema: z.ZodType, io: 'input' | 'output') => ({
  'application/json': { schema: jsonSchema(schema, io) },
});
const answer = (description: string, schema?: z.ZodType) =>
  schema ? { description, content: json(schema, 'output') } : { description };

function errors(...statuses: number[]): Record<string, unknown> {
  const text: Record<number, string> = {
    400: 'Bad input: the message names the field and the rule',
    401: 'Missing, malformed or unknown API key (WWW-Authenticate: Bearer)',
    404: 'Unknown project, or a key of another project',
    405: 'Method not allowed',
    409: 'A crawl of this project is already queued or running (start), or the crawl has not ended yet (changes)',
    413: 'Request body larger than the server limit',
    501: 'Not available on this service',
    502: 'The upstream /v1 service failed',
    429: 'Too many requests from this client (its API key, else its address) in the rate limit window: Retry-After says how many seconds to wait',
  };
  // Any route may meet the rate limit of svc serve.
  return Object.fromEntries([...statuses, 429].map((s) => [String(s), answer(text[s] ?? 'Error', ErrorSchema)]));
}

const tokenParam = {
  name: 'publicToken',
  in: 'path',
  required: true,
  description: 'The project, as <id>:<region>',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}:[a-z0-9-]{1,32}$' },
};

let cached: JsonSchema | null = null;

export function openApiDocument(): JsonSchema {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'svc /v1',
      version: '1',
      description: 'Starts crawls of a site and reads its link report; full-text search of the crawled pages.',
    },
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key from `svc keys create`' } },
    },
    security: [{ apiKey: [] }],
    paths: {
      '/v1/projects/{publicToken}/crawls': {
        parameters: [tokenParam],
        post: {
          operationId: 'startCrawl',
          summary:
            'Start a crawl (full, partial, or manual with urls); answers at once, the crawl runs in the background',
          requestBody: { required: true, content: json(CrawlRequestSchema, 'input') },
          responses: {
            '202': answer('The crawl record (queued or running)', CrawlRecordSchema),
            ...errors(400, 401, 404, 409, 413),
          },
        },
        get: {
          operationId: 'listCrawls',
          summary: 'Crawl records, newest first',
          parameters: queryParameters(CrawlListQuerySchema),
          responses: { '200': answer('A page of crawl records', CrawlListSchema), ...errors(400, 401, 404) },
        },
      },
      '/v1/projects/{publicToken}/crawls/{id}': {
        parameters: [tokenParam, { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
        get: {
          operationId: 'getCrawl',
          summary: 'One crawl record, with live stats while it runs',
          responses: { '200': answer('The crawl record', CrawlRecordSchema), ...errors(400, 401, 404) },
        },
      },
      '/v1/projects/{publicToken}/schedule': {
        parameters: [tokenParam],
        get: {
          operationId: 'schedule',
          summary:
            "The crawl schedules in force (full, partial), the stored one or else the config's (source says which): cron expression, next run, last run; null for a kind with no schedule",
          responses: { '200': answer('The schedule', ScheduleSchema), ...errors(401, 404) },
        },
        put: {
          operationId: 'setSchedule',
          summary:
            "Stores a schedule that replaces the config's until DELETE (a kind left out or null: none); serving processes follow it without a restart",
          requestBody: { required: true, content: json(ScheduleSetSchema, 'input') },
          responses: { '200': answer('The schedule now in force', ScheduleSchema), ...errors(400, 401, 404, 409) },
        },
        delete: {
          operationId: 'clearSchedule',
          summary: "Forgets the stored schedule: the config's is in force again",
          responses: { '200': answer('The schedule now in force', ScheduleSchema), ...errors(401, 404) },
        },
      },
      '/v1/projects/{publicToken}/crawls/{id}/changes': {
        parameters: [tokenParam, { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
        get: {
          operationId: 'crawlChanges',
          summary:
            'What the crawl changed since the previous completed full crawl: problems new in the report and problems gone from it',
          responses: { '200': answer('New and fixed problems', CrawlChangesSchema), ...errors(400, 401, 404, 409) },
        },
      },
      '/v1/projects/{publicToken}/webhook-deliveries': {
        parameters: [tokenParam],
        get: {
          operationId: 'listWebhookDeliveries',
          summary: 'Webhook deliveries (the outbox), newest first',
          parameters: queryParameters(WebhookDeliveryListQuerySchema),
          responses: { '200': answer('A page of deliveries', WebhookDeliveryListSchema), ...errors(400, 401, 404) },
        },
      },
      '/v1/projects/{publicToken}/link-report': {
        parameters: [tokenParam],
        get: {
          operationId: 'linkReport',
          summary:
            'Problem links grouped by reason, then by the page they were found on. Order: sections notFound, forbidden, serverError, redirect, unknown; then page URL; then link URL. Built from stored data only.',
          parameters: queryParameters(LinkReportQuerySchema),
          responses: { '200': answer('The link report (REST form)', LinkReportSchema), ...errors(400, 401, 404) },
        },
      },
      '/v1/projects/{publicToken}/search': {
        parameters: [tokenParam],
        post: {
          operationId: 'search',
          summary: 'Full-text search of the indexed pages (public: no API key)',
          security: [],
          requestBody: { required: true, content: json(SearchRequestSchema, 'input') },
          responses: { '200': answer('Search results', SearchResultsSchema), ...errors(400, 404, 413, 501) },
        },
      },
      '/v1/projects/{publicToken}/search-stats': {
        parameters: [tokenParam],
        get: {
          operationId: 'searchStats',
          summary:
            'Search analytics: the most searched terms, the terms that found nothing, and searches per day, since a time (default: the retention window). Each search is recorded with its normalized terms, hit count and time only: no address, user or key.',
          parameters: queryParameters(SearchStatsQuerySchema),
          responses: { '200': answer('Search analytics', SearchStatsSchema), ...errors(400, 401, 404) },
        },
      },
      '/v1/projects/{publicToken}/pages': {
        parameters: [tokenParam],
        get: {
          operationId: 'pages',
          summary:
            'With url: what the search index holds of that URL (whether a crawl indexed it, whether it can appear in search, when it was last crawled). Without url: the stored pages under prefix in address order, limit at a time, with the total; next_cursor, given back as cursor, reads on.',
          parameters: [
            ...queryParameters(PageStateQuerySchema).map((p) => ({ ...p, required: false })),
            ...queryParameters(PageListQuerySchema),
          ],
          responses: {
            '200': {
              description:
                'With url: the page state (all false and null for a URL no crawl has stored). Without: a page of the list.',
              content: {
                'application/json': {
                  schema: { oneOf: [jsonSchema(PageIndexStateSchema, 'output'), jsonSchema(PageListSchema, 'output')] },
                },
              },
            },
            ...errors(400, 401, 404),
          },
        },
      },
      '/v1/projects/{publicToken}/pages/content': {
        parameters: [tokenParam],
        get: {
          operationId: 'pageContent',
          summary:
            'One stored page as Markdown with its outline, max_length characters from start_index (next_start_index reads on), or one section by anchor. From stored data only.',
          parameters: queryParameters(PageContentQuerySchema),
          responses: {
            '200': answer('A chunk of the page', PageContentSchema),
            ...errors(400, 401, 404),
          },
        },
      },
      '/v1/projects/{publicToken}/pages/delete': {
        parameters: [tokenParam],
        post: {
          operationId: 'deletePages',
          summary: 'Remove pages from the search index by exact URL, without crawling them',
          requestBody: { required: true, content: json(DeletePagesRequestSchema, 'input') },
          responses: {
            '200': answer('Which URLs were deleted and which were not in the index', DeletePagesResultSchema),
            ...errors(400, 401, 404, 413, 501),
          },
        },
      },
      '/v1/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1 document' } },
        },
      },
    },
  };
  return cached;
}
