// svc/search: full-text search of the site's index; wraps svc_search().
import { z } from 'zod';
import { defineAbility } from './define.js';
import { SearchParamsSchema, SearchResultsSchema } from './schemas.js';
import { SearchTermsSchema } from '../model/search-params.js';
import { SEARCH_TERMS_MAX_CHARS, SEARCH_TERMS_MAX_WORDS } from '../model/limits.js';
import { searchNotice } from './rest-to-ability.js';
import { latestCrawlOrNull } from './svc-get-crawl.js';

export const svcSearch = defineAbility({
  name: 'svc/search',
  label: 'Search the site',
  description:
    'Full-text search over the pages of this site that the crawler has indexed (titles, text, tags and superwords; ranked by relevance). ' +
    'Use it to find pages about a topic, or to check whether a page is in the search index. Words are combined with AND; when no page holds them all, ' +
    'the pages holding most of them are returned, each with matched_terms; a word in no page is corrected to a near word of the index (corrected_terms); ' +
    'the last word also matches as a prefix; "quoted phrases" match exactly. Returns {success, results: {total, duration, hits}}, each hit with title, url, a ' +
    'highlight (matches wrapped in <em>), tags and dates. At most 100 hits per call (search_params.size, default 10); page with search_params.from. ' +
    'Filter with search_params.lang, search_params.tags (all must match) and search_params.path_prefix ("/docs/"); search_params.facets ["lang","tags","path"] adds counts of the matches. Pages hidden from search and unpublished posts are never returned. When nothing is found because no crawl has filled the ' +
    'index yet (or one is still running), notice says so and what to run.',
  capability: 'read',
  annotations: { readonly: true, destructive: false, idempotent: true },
  inputSchema: z
    .object({
      terms: SearchTermsSchema.regex(/\S/, 'must not be empty').describe(
        `The words to search for (at most ${SEARCH_TERMS_MAX_CHARS} characters and ${SEARCH_TERMS_MAX_WORDS} words).`,
      ),
      search_params: SearchParamsSchema.optional().describe(
        'Paging, filters and counts: size, from, lang, tags, path_prefix, facets, highlight_length.',
      ),
    })
    .strict(),
  outputSchema: z.object({
    success: z.boolean(),
    results: SearchResultsSchema,
    notice: z
      .string()
      .optional()
      .describe('Only when nothing was found and the index is empty or still being filled: what to do next.'),
  }),
  async run(input, { deps }) {
    const results = await deps.fns.svc_search(input.terms, input.search_params ?? {});
    const notice = results.total === 0 ? searchNotice(await latestCrawlOrNull(deps)) : null;
    return notice ? { success: true, results, notice } : { success: true, results };
  },
});
