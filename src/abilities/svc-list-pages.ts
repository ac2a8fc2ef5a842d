// svc/list-pages: the stored pages under a path prefix, a page of them at a time; wraps svc_list_pages(). A caller
// who may only search sees only the pages in search.
import { userCan } from '../cms/roles.js';
import { PageListFieldsSchema, PageListSchema } from '../backend/page-contract.js';
import { PAGE_LIST_LIMIT } from '../model/limits.js';
import { defineAbility } from './define.js';

export const svcListPages = defineAbility({
  name: 'svc/list-pages',
  label: 'List the stored pages',
  description:
    'Lists the pages of this site that crawls stored, in address order: {prefix, pages: [{url, title, last_crawled, in_search}], ' +
    `total, next_cursor}. prefix narrows it to a path (e.g. "/docs/") or URL prefix. At most limit pages per call (default ${PAGE_LIST_LIMIT.default}); ` +
    'when next_cursor is not null, call again with cursor set to it (and the same prefix) for the next ones. Read a page with ' +
    'svc/get-page. Administrators see every stored page (in_search says whether search shows it); other users only the pages in search.',
  capability: 'read',
  annotations: { readonly: true, destructive: false, idempotent: true },
  inputSchema: PageListFieldsSchema.strict().default({ prefix: '/', limit: PAGE_LIST_LIMIT.default }),
  outputSchema: PageListSchema,
  async run(input, { user, deps }) {
    return deps.fns.svc_list_pages({ ...input, in_search: !userCan(user, 'manage_options') });
  },
});
