// A post of the host CMS: the fields of a posts file entry and of the post store.
import { z } from 'zod';

export const POST_STATUSES = ['publish', 'private', 'draft', 'pending', 'future'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** An ISO 8601 date-time (with Z or an offset) or a plain date; stored normalised to UTC ISO. */
const isoDate = z
  .union([z.iso.datetime({ offset: true, local: false }), z.iso.date()], {
    error: 'must be an ISO 8601 date-time, e.g. 2026-05-01T09:00:00Z',
  })
  .transform((s) => new Date(s).toISOString());

const slug = /^[a-z0-9_-]+$/;

/** The message of a required field: "is required" when absent, else the rule. */
const required = (rule: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : rule),
});

export const PostSchema = z
  .object({
    id: z
      .number(required('must be a whole number'))
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(Number.MAX_SAFE_INTEGER),
    url: z.url({ protocol: /^https?$/, ...required('must be a full http(s) URL') }),
    title: z.string().default(''),
    status: z.enum(POST_STATUSES, required(`must be one of ${POST_STATUSES.join(', ')}`)),
    author: z.string(required('must be a user login')).min(1, 'must be a user login'),
    type: z.string().regex(slug, 'must be a post type slug (a-z, 0-9, _ and -)').default('post'),
    created: isoDate.nullable().default(null),
    modified: isoDate.nullable().default(null),
    language: z.string().min(1).max(35).nullable().default(null),
    terms: z
      .record(
        z.string().regex(slug, 'taxonomy names are slugs (a-z, 0-9, _ and -)'),
        z.array(z.string().min(1, 'terms must not be empty')),
      )
      .default({}),
    show_in_search: z.boolean().default(true),
    superwords: z.array(z.string().min(1)).default([]),
    /** The post's body, for whoever renders it (the demo site); not part of the page meta. */
    content: z.string().default(''),
  })
  .strict();

export type Post = z.output<typeof PostSchema>;
export type PostInput = z.input<typeof PostSchema>;
