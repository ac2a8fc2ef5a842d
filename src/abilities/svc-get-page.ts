// svc/get-page: one stored page as Markdown, in chunks or one section, from what the crawl stored (the site is not
// asked); wraps svc_get_page(). A page the caller may not see in search is answered exactly like a missing one.
import { userCan } from '../cms/roles.js';
import { PageContentFieldsSchema, PageContentSchema } from '../backend/page-contract.js';
import { PAGE_CHUNK } from '../model/limits.js';
import { checkSiteUrl } from '../model/site-urls.js';
import { BackendError } from '../model/errors.js';
import { defineAbility } from './define.js';
import { pageNotFound } from './errors.js';

export const svcGetPage = defineAbility({
  name: 'svc/get-page',
  label: 'Read a stored page',
  description:
    'Reads one page of this site as the last crawl stored it (no request goes to the site): {url, title, lang, last_crawled, ' +
    'outline (its headings, each with an anchor), markdown (headings, paragraphs, lists, code, tables, links as [text](url)), ' +
    `start_index, total_length, next_start_index}. At most max_length characters per call (default ${PAGE_CHUNK.default}); ` +
    'when next_start_index is not null, call again with start_index set to it to read on. To read one part, give ' +
    'section: an anchor from outline (or the section of a svc/search hit). Find page URLs with svc/search, or list the ' +
    'stored pages with svc/list-pages. Pages hidden from search are readable only by administrators.',
  capability: 'read',
  annotations: { readonly: true, destructive: false, idempotent: true },
  inputSchema: PageContentFieldsSchema.strict(),
  outputSchema: PageContentSchema,
  checkInput(input, deps, check) {
    if (!deps.targets.length) return [];
    const r = checkSiteUrl(input.url, deps.targets, { revealTargets: check.revealTargets });
    return typeof r === 'string' ? [{ path: 'url', message: r }] : [];
  },
  async run(input, { user, deps }) {
    try {
      return await deps.fns.svc_get_page({ ...input, in_search: !userCan(user, 'manage_options') });
    } catch (err) {
      if (err instanceof BackendError && err.code === 'not_found') throw pageNotFound(err);
      throw err;
    }
  },
});
