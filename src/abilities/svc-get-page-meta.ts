// svc/get-page-meta: the page meta of one post; wraps svc_get_page_meta(). A post the user may not read is
// answered exactly like a missing one.
import { z } from 'zod';
import { canReadPost } from '../cms/roles.js';
import { defineAbility } from './define.js';
import { postNotFound } from './errors.js';
import { PageMetaSchema } from './schemas.js';
import { toAbilityPageMeta } from './rest-to-ability.js';

export const svcGetPageMeta = defineAbility({
  name: 'svc/get-page-meta',
  label: 'Get the page meta of a post',
  description:
    'Returns the page meta of one post or page, by its numeric post id: the data the crawler indexes for it (title, url, created and ' +
    'modified dates, language, tags such as public, post_type/post, taxonomy/category/<term> and domain/<host>, customFields with ' +
    'postId, superwords, and showInSearch — whether the post asks to appear in search results), and index: whether a crawl has ' +
    'indexed the page (indexed), whether it can appear in search now (in_search) and when it was last crawled. Use it to see how a post is indexed or why it ' +
    'does or does not show up in search. A post that does not exist and an unpublished post you may not read give the same ' +
    'svc_post_not_found error.',
  capability: 'read',
  annotations: { readonly: true, destructive: false, idempotent: true },
  inputSchema: z
    .object({
      post_id: z
        .number({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .max(Number.MAX_SAFE_INTEGER)
        .describe('The numeric id of the post or page.'),
    })
    .strict(),
  outputSchema: PageMetaSchema,
  async run(input, { user, deps }) {
    const post = await deps.fns.svc_get_post(input.post_id);
    if (!post || !canReadPost(user, post)) throw postNotFound(input.post_id);
    const meta = await deps.fns.svc_get_page_meta(input.post_id);
    if (!meta) throw postNotFound(input.post_id);
    return toAbilityPageMeta(meta, await deps.fns.svc_page_index_state(meta.url));
  },
});
