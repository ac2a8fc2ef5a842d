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
      section: z
        .object({ heading: z.string(), anchor: z.string() })
        .nullable()
        .optional()
        .describe(
          "The page's section that best matches the query: read it with svc/get-page {url, section: anchor}; null when none does.",
        ),
    }),
  ),
}) satisfies z.ZodType<SearchResults>;
