// The /v1 schemas of reading the site (GET …/pages/content and GET …/pages?prefix=): the queries the facade
// validates and the answers the remote client checks, shared with the svc/get-page and svc/list-pages abilities.
import { z } from 'zod';
import { PAGE_CHUNK, PAGE_LIST_LIMIT } from '../model/limits.js';
import { PageUrlSchema } from './crawl-request-schema.js';

const intRange = (min: number, max: number) => {
  const error = `must be an integer from ${min} to ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
};

/** `true`/`false` in a query string. */
const QueryFlagSchema = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((s) => s === 'true')
  .optional()
  .meta({ description: 'true: only pages in search (indexed and shown): what a caller who may only search may read.' });

export const PageContentFieldsSchema = z.object({
  url: PageUrlSchema.meta({
    description: 'The stored page, by its full URL as search and the page list name it (a #fragment is ignored).',
  }),
  start_index: intRange(0, 1_000_000_000)
    .default(0)
    .meta({ description: 'Where the chunk starts, in characters of the Markdown (of the section, with section).' }),
  max_length: intRange(PAGE_CHUNK.min, PAGE_CHUNK.max)
    .default(PAGE_CHUNK.default)
    .meta({ description: `Characters of Markdown returned, ${PAGE_CHUNK.min}-${PAGE_CHUNK.max}.` }),
  section: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(300, 'must be at most 300 characters')
    .optional()
    .meta({ description: "Read only this section: a heading's anchor from outline (with or without '#')." }),
});

export const PageContentQuerySchema = PageContentFieldsSchema.extend({ in_search: QueryFlagSchema }).strict();

export const PageListFieldsSchema = z.object({
  prefix: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(2000, 'must be at most 2000 characters')
    .refine((s) => s.startsWith('/') || /^https?:\/\//i.test(s), {
      error: 'must be a path starting with "/" (e.g. "/docs/") or a full http(s) URL prefix',
    })
    .default('/')
    .meta({ description: 'Only pages whose address starts with this path (e.g. "/docs/") or full URL prefix.' }),
  cursor: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(4000, 'must be at most 4000 characters')
    .optional()
    .meta({ description: 'next_cursor of the previous answer, to read the next page of the list.' }),
  limit: intRange(PAGE_LIST_LIMIT.min, PAGE_LIST_LIMIT.max)
    .default(PAGE_LIST_LIMIT.default)
    .meta({ description: `Pages per answer, ${PAGE_LIST_LIMIT.min}-${PAGE_LIST_LIMIT.max}.` }),
});

export const PageListQuerySchema = PageListFieldsSchema.extend({ in_search: QueryFlagSchema }).strict();

export const OutlineItemSchema = z.object({
  level: z.int().min(1).max(6),
  heading: z.string(),
  anchor: z
    .string()
    .meta({ description: 'Give it as section to read this part; the page URL + "#" + anchor reaches it.' }),
});

export const PageContentSchema = z
  .object({
    url: z.string(),
    title: z.string(),
    lang: z.string().nullable(),
    last_crawled: z.string().meta({ description: 'When a crawl last stored the page (ISO 8601).' }),
    in_search: z.boolean(),
    outline: z.array(OutlineItemSchema).meta({ description: "The page's headings, in order (at most the first 100)." }),
    outline_total: z.int().min(0).meta({ description: 'Headings the page has in all.' }),
    section: z.string().nullable().meta({ description: 'The section read (its anchor), or null for the whole page.' }),
    markdown: z.string().meta({ description: 'This chunk of the page (or section) as Markdown.' }),
    start_index: z.int().min(0),
    max_length: z.int().min(0),
    total_length: z.int().min(0).meta({ description: 'Characters of the whole page (or section) as Markdown.' }),
    next_start_index: z
      .int()
      .min(0)
      .nullable()
      .meta({ description: 'Give it as start_index to read on; null when this chunk reaches the end.' }),
  })
  .meta({ title: 'PageContent' });

export const PageListSchema = z
  .object({
    prefix: z.string(),
    pages: z.array(
      z.object({
        url: z.string(),
        title: z.string(),
        last_crawled: z.string(),
        in_search: z.boolean(),
      }),
    ),
    total: z.int().min(0).meta({ description: 'Pages under the prefix in all.' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Give it as cursor for the next page of the list; null on the last.' }),
  })
  .meta({ title: 'PageList' });

export type PageContent = z.output<typeof PageContentSchema>;
export type PageList = z.output<typeof PageListSchema>;
export type PageContentQuery = z.output<typeof PageContentQuerySchema>;
export type PageListQuery = z.output<typeof PageListQuerySchema>;
