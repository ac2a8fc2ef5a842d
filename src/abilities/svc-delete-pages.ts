// svc/delete-pages: removes pages from the search index by exact URL, without crawling them.
import { z } from 'zod';
import { defineAbility, urlsOnTargets } from './define.js';
import { toAbilityDeleteResult } from './rest-to-ability.js';
import { PageUrlSchema } from './schemas.js';
import { DELETE_URLS_MAX } from '../model/limits.js';

export const svcDeletePages = defineAbility({
  name: 'svc/delete-pages',
  label: 'Delete pages from the search index',
  description:
    'Removes pages from the search index by exact URL, without crawling them (e.g. a page that was taken down and should stop ' +
    `appearing in search before the next full crawl). At most ${DELETE_URLS_MAX} URLs per call; each a full URL on one of this site's ` +
    'configured hosts. Returns {deleted, not_found}: the URLs removed, and those that were not in the index. The site itself is not ' +
    'changed; a later crawl indexes the page again if it still exists and is linked.',
  capability: 'manage_options',
  annotations: { readonly: false, destructive: true, idempotent: true },
  inputSchema: z
    .object({
      urls: z
        .array(PageUrlSchema, { error: 'must be an array of URLs' })
        .min(1, 'must list at least 1 URL')
        .max(DELETE_URLS_MAX, `must list at most ${DELETE_URLS_MAX} URLs`)
        .describe('Exact full URLs of indexed pages.'),
    })
    .strict(),
  outputSchema: z.object({
    deleted: z.array(z.string()).describe('URLs removed from the index.'),
    not_found: z.array(z.string()).describe('URLs that were not in the index.'),
  }),
  checkInput: (input, deps, check) => urlsOnTargets(input.urls, deps.targets, check),
  async run(input, { deps }) {
    return toAbilityDeleteResult(await deps.fns.svc_delete_pages(input.urls));
  },
});
