// svc/partial-crawl: starts a partial (sitemap-changes-only) crawl in the background.
import { z } from 'zod';
import { defineAbility } from './define.js';
import { toAbilityCrawlRecord } from './rest-to-ability.js';
import { FOLLOW_CRAWL, CrawlRecordSchema } from './schemas.js';

export const svcPartialCrawl = defineAbility({
  name: 'svc/partial-crawl',
  label: 'Start a partial crawl',
  description:
    'Starts a partial crawl in the background and returns at once with the crawl record: only pages whose sitemap lastmod changed ' +
    'since the last crawl are fetched and re-indexed (sitemaps only; links are not walked). Faster than a full crawl after a few ' +
    'edits. Only one crawl runs at a time: while one runs this fails with svc_api_error (409). ' +
    FOLLOW_CRAWL,
  capability: 'manage_options',
  annotations: { readonly: false, destructive: false, idempotent: false },
  inputSchema: z.object({}).strict().default({}),
  outputSchema: CrawlRecordSchema,
  async run(_input, { deps }) {
    return toAbilityCrawlRecord(await deps.fns.svc_partial_crawl());
  },
});
