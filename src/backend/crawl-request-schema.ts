// The body of a crawl request, part of the /v1 contract (contract.ts gives it with the others) and kept apart
// from it: every crawl's request is checked against it, so a crawl from the CLI loads this and not the schemas
// of every other /v1 request and answer.
import { z } from 'zod';
import { MANUAL_URLS_MAX } from '../model/limits.js';
import { CRAWL_MODES } from '../model/types.js';

/** A full http(s) URL (whether it is on a configured target is checked against the config when it is used). */
export const PageUrlSchema = z.url({ protocol: /^https?$/, error: 'must be a full http(s) URL' });

export const CrawlRequestSchema = z
  .object({
    mode: z.enum(CRAWL_MODES, {
      error: (iss) =>
        iss.input === undefined ? 'is required: full, partial or manual' : 'must be one of full, partial, manual',
    }),
    urls: z
      .array(PageUrlSchema, { error: 'must be an array of URLs' })
      .min(1, { error: 'must list at least one URL' })
      .max(MANUAL_URLS_MAX, { error: `must list at most ${MANUAL_URLS_MAX} URLs` })
      .optional()
      .meta({
        description: 'Required with mode manual, and only allowed with it: full URLs of pages on a configured target.',
      }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.mode === 'manual' && body.urls === undefined)
      ctx.addIssue({ code: 'custom', path: ['urls'], message: 'is required when mode is manual' });
    if (body.mode !== 'manual' && body.urls !== undefined)
      ctx.addIssue({ code: 'custom', path: ['urls'], message: 'is only allowed with mode manual' });
  })
  .meta({ title: 'CrawlRequest' });
