// The search results' shape, written once: the ability's output schema, the REST facade's answer and the
// remote client's check all use it.
import { z } from 'zod';
import type { SearchResults } from './types.js';

export const CustomFieldSchema = z.object({
  type: z.enum(['keyword', 'number', 'date']),
  value: z.union([z.string(), z.number()]),
});

export const SearchResultsSchema = z.object({
  total: z.number().int().min(0),
  duration: z.number().min(0).describe('Milliseconds spent answering.'),
  hits: z.array(
    z.object({
      score: z.number(),
      title: z.string(),
      url: z.string(),
      language: z.string().nullable(),
      highlight: z.string().describe('Snippet with the matches wrapped in <em>.'),
      tags: z.array(z.string()),
      created: z.string().nullable(),
      modified: z.string().nullable(),
      customFields: z.record(z.string(), CustomFieldSchema),
      matched_terms: z
        .array(z.string())
        .optional()
        .describe(
          'Only on a hit holding some of the words, not all (these come after every hit holding all): the words it holds.',
        ),
      section: z
        .object({ heading: z.string(), anchor: z.string() })
        .nullable()
        .optional()
        .describe(
          "The page's section that best matches the query: read it with svc/get-page {url, section: anchor}; null when none does.",
        ),
    }),
  ),
  corrected_terms: z
    .array(z.object({ from: z.string(), to: z.string() }))
    .optional()
    .describe('Words in no page, each searched as the nearest word of the index instead ("showing results for").'),
  did_you_mean: z
    .string()
    .optional()
    .describe('When the query finds little: the query with a rare word replaced by a more frequent near word.'),
  facets: z
    .partialRecord(
      z.enum(['lang', 'tags', 'path']),
      z.array(z.object({ value: z.string(), count: z.number().int().min(0) })),
    )
    .optional()
    .describe('With search_params.facets: per facet, the most frequent values among the matches and their counts.'),
}) satisfies z.ZodType<SearchResults>;
