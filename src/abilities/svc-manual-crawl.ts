// svc/manual-crawl: crawls the listed URLs only; wraps svc_manual_crawl().
import { z } from 'zod';
import { defineAbility, urlsOnTargets } from './define.js';
import { toAbilityCrawlRecord } from './rest-to-ability.js';
import { FOLLOW_CRAWL, CrawlRecordSchema, PageUrlSchema } from './schemas.js';
import { MANUAL_URLS_MAX } from '../model/limits.js';

export const svcManualCrawl = defineAbility({
  name: 'svc/manual-crawl',
  label: 'Crawl specific pages',
  description:
    'Starts a crawl of only the listed pages in the background and returns at once with the crawl record. Use it after editing or ' +
    'publishing a few pages, to re-index them and re-check their links without a full crawl. Every URL must be a full URL ' +
    `(https://host/path) on one of this site's configured hosts; 1 to ${MANUAL_URLS_MAX} URLs. Only one crawl runs at a time: while one ` +
    'runs this fails with svc_api_error (409). ' +
    FOLLOW_CRAWL,
  capability: 'manage_options',
  annotations: { readonly: false, destructive: false, idempotent: false },
  inputSchema: z
    .object({
      urls: z
        .array(PageUrlSchema, { error: 'must be an array of URLs' })
        .min(1, 'must list at least 1 URL')
        .max(MANUAL_URLS_MAX, `must list at most ${MANUAL_URLS_MAX} URLs`)
        .describe('Full URLs of pages on this site.'),
    })
    .strict(),
  outputSchema: CrawlRecordSchema,
  checkInput: (input, deps, check) => urlsOnTargets(input.urls, deps.targets, check),
  async run(input, { deps }) {
    return toAbilityCrawlRecord(await deps.fns.svc_manual_crawl(input.urls));
  },
});
