// svc/full-crawl: starts a full crawl in the background.
import { z } from 'zod';
import { defineAbility } from './define.js';
import { toAbilityCrawlRecord } from './rest-to-ability.js';
import { FOLLOW_CRAWL, CrawlRecordSchema } from './schemas.js';

export const svcFullCrawl = defineAbility({
  name: 'svc/full-crawl',
  label: 'Start a full crawl',
  description:
    'Starts a full crawl of the site in the background and returns at once with the crawl record (id, status queued or running). ' +
    'A full crawl reads robots.txt and the sitemaps, re-indexes every page, re-checks every tracked link, and afterwards removes pages ' +
    'it no longer found; it decides what the link report holds. It can take minutes on a large site. Only one crawl runs at a time: ' +
    'while one runs this fails with svc_api_error (409). Use svc/partial-crawl for changed pages only, svc/manual-crawl for a few URLs. ' +
    FOLLOW_CRAWL,
  capability: 'manage_options',
  annotations: { readonly: false, destructive: false, idempotent: false },
  inputSchema: z.object({}).strict().default({}),
  outputSchema: CrawlRecordSchema,
  async run(_input, { deps }) {
    return toAbilityCrawlRecord(await deps.fns.svc_full_crawl());
  },
});
