// The one schema of `search_params`, shared by the embedded engine, the /v1 REST facade and the ability layer.
import { z } from 'zod';
import { formatZodIssues } from '../lib/zod-issues.js';
import { BackendError } from './errors.js';
import { SEARCH_TERMS_MAX_CHARS, SEARCH_TERMS_MAX_WORDS, termsLimitProblem, termsWordCount } from './limits.js';

export const SEARCH_SIZE_MAX = 100;
export const HIGHLIGHT_LENGTH_MIN = 20;
export const HIGHLIGHT_LENGTH_MAX = 1000;
export const HIGHLIGHT_LENGTH_DEFAULT = 200;
/** More tag filters than this cannot all match a real page; refusing keeps the query small. */
export const SEARCH_TAGS_MAX = 20;
/** What a search can count its matches by: language, tag, and the first segment of the address's path. */
export const SEARCH_FACETS = ['lang', 'tags', 'path'] as const;
export type SearchFacetName = (typeof SEARCH_FACETS)[number];
export const PATH_PREFIX_MAX = 1000;
const PATH_RULE = 'must be a path starting with / (such as /docs/), without spaces, ? or #';

const wholeNumber = (min: number, max: number) => {
  const rule =
    max === Number.MAX_SAFE_INTEGER
      ? `must be a whole number >= ${min}`
      : `must be a whole number from ${min} to ${max}`;
  return z.number({ error: rule }).int({ error: rule }).min(min, { error: rule }).max(max, { error: rule });
};

export const SearchParamsSchema = z
  .strictObject({
    size: wholeNumber(1, SEARCH_SIZE_MAX).default(10).describe('Number of hits to return, 1 to 100 (default 10).'),
    from: wholeNumber(0, Number.MAX_SAFE_INTEGER)
      .default(0)
      .describe('Offset of the first hit, for paging (default 0).'),
    lang: z
      .string({ error: 'must be a language code such as en or en-US' })
      .trim()
      .min(1, { error: 'must be a language code such as en or en-US' })
      .max(35, { error: 'must be a language code such as en or en-US' })
      .optional()
      .describe('Only pages in this language; "en" also matches "en-US".'),
    tags: z
      .array(z.string({ error: 'must be a non-empty string' }).min(1, { error: 'must be a non-empty string' }), {
        error: 'must be an array of strings',
      })
      .max(SEARCH_TAGS_MAX, { error: `must hold at most ${SEARCH_TAGS_MAX} tags` })
      .optional()
      .describe('Only pages carrying every one of these tags, e.g. ["post_type/post"].'),
    facets: z
      .array(z.enum(SEARCH_FACETS, { error: `must be one of ${SEARCH_FACETS.join(', ')}` }), {
        error: `must be an array of facet names (${SEARCH_FACETS.join(', ')})`,
      })
      .max(SEARCH_FACETS.length, { error: `must hold at most ${SEARCH_FACETS.length} facet names` })
      .optional()
      .describe(
        'Count the matches by these: "lang" (page language), "tags", "path" (first folder of the address, e.g. "/docs/"; "/" for pages at the root). The answer then has facets, the most frequent 20 values of each.',
      ),
    path_prefix: z
      .string({ error: PATH_RULE })
      .max(PATH_PREFIX_MAX, { error: PATH_RULE })
      .regex(/^\/[^\s?#]*$/u, { error: PATH_RULE })
      .optional()
      .describe('Only pages whose address path starts with this, e.g. "/docs/" (a value of the "path" facet).'),
    highlight_length: wholeNumber(HIGHLIGHT_LENGTH_MIN, HIGHLIGHT_LENGTH_MAX)
      .default(HIGHLIGHT_LENGTH_DEFAULT)
      .describe("Approximate length in characters of each hit's highlight (default 200)."),
  })
  .describe('Paging, filters and counts of a search: size, from, lang, tags, path_prefix, facets, highlight_length.');

export type SearchParamsInput = z.input<typeof SearchParamsSchema>;
export type ResolvedSearchParams = z.output<typeof SearchParamsSchema>;

/** Validates search params (undefined and null mean none), or throws invalid_input naming each bad key. */
export function parseSearchParams(raw: unknown): ResolvedSearchParams {
  const parsed = SearchParamsSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new BackendError('invalid_input', formatZodIssues(parsed.error).join('; '));
  return parsed.data;
}

/**
 * The terms of a request schema (/v1 search, the svc/search ability and so its MCP tool): a string within the size
 * and word limits; the size is the JSON Schema's maxLength too.
 */
export const SearchTermsSchema = z
  .string({ error: 'must be a string' })
  .max(SEARCH_TERMS_MAX_CHARS, { error: `must be at most ${SEARCH_TERMS_MAX_CHARS} characters` })
  .refine((t) => termsWordCount(t) <= SEARCH_TERMS_MAX_WORDS, {
    error: `must be at most ${SEARCH_TERMS_MAX_WORDS} words`,
  });

/** Search terms: a string with at least one non-space character, within the limits. Returns the terms unchanged. */
export function checkTerms(terms: unknown): string {
  if (typeof terms !== 'string') throw new BackendError('invalid_input', 'terms: must be a string');
  if (!terms.trim()) throw new BackendError('invalid_input', 'terms: must not be empty');
  const over = termsLimitProblem(terms);
  if (over) throw new BackendError('invalid_input', `terms: ${over}`);
  return terms;
}
