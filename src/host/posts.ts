// The host's posts: the posts file format (JSON array or NDJSON), the post store, and the page meta of a post
// (DESIGN.md §2) — the one implementation the ability layer and the demo site's page renderer both use.
import { z } from 'zod';
import { formatZodIssues } from '../zod-issues.js';
import type { Store } from '../backend/store/store.js';
import type { PageMeta } from '../backend/types.js';
import type { PostStatus } from './roles.js';

export const POST_STATUSES = ['publish', 'private', 'draft', 'pending', 'future'] as const satisfies readonly PostStatus[];

/** An ISO 8601 date-time (with Z or an offset) or a plain date; stored normalised to UTC ISO. */
const isoDate = z
  .union([z.iso.datetime({ offset: true, local: false }), z.iso.date()], { error: 'must be an ISO 8601 date-time, e.g. 2026-05-01T09:00:00Z' })
  .transform((s) => new Date(s).toISOString());

const slug = /^[a-z0-9_-]+$/;

/** The message of a required field: "is required" when absent, else the rule. */
const required = (rule: string) => ({ error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : rule) });

export const PostSchema = z
  .object({
    id: z.number(required('must be a whole number')).int('must be a whole number').min(1, 'must be at least 1').max(Number.MAX_SAFE_INTEGER),
    url: z.url({ protocol: /^https?$/, ...required('must be a full http(s) URL') }),
    title: z.string().default(''),
    status: z.enum(POST_STATUSES, required(`must be one of ${POST_STATUSES.join(', ')}`)),
    author: z.string(required('must be a user login')).min(1, 'must be a user login'),
    type: z.string().regex(slug, 'must be a post type slug (a-z, 0-9, _ and -)').default('post'),
    created: isoDate.nullable().default(null),
    modified: isoDate.nullable().default(null),
    language: z.string().min(1).max(35).nullable().default(null),
    terms: z
      .record(z.string().regex(slug, 'taxonomy names are slugs (a-z, 0-9, _ and -)'), z.array(z.string().min(1, 'terms must not be empty')))
      .default({}),
    show_in_search: z.boolean().default(true),
    superwords: z.array(z.string().min(1)).default([]),
    /** The post's body, for whoever renders it (the demo site); not part of the page meta. */
    content: z.string().default(''),
  })
  .strict();

export type Post = z.output<typeof PostSchema>;
export type PostInput = z.input<typeof PostSchema>;

export class PostsFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid posts file:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PostsFileError';
  }
}

/** 1-based line of a character offset. */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Parses a posts file: a JSON array of posts, or NDJSON (one post per line, blank lines ignored). Every problem
 * names where it is (`line 7` for NDJSON, `post 3` for an array entry, with its id when it has one) and the field.
 */
export function parsePostsFile(text: string): Post[] {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  const items: { where: string; raw: unknown }[] = [];
  const problems: string[] = [];
  if (trimmed.startsWith('[')) {
    let arr: unknown[];
    try {
      arr = JSON.parse(trimmed) as unknown[];
    } catch (err) {
      const m = /position (\d+)/.exec((err as Error).message);
      const where = m ? `line ${lineOf(trimmed, Number(m[1]))}: ` : '';
      throw new PostsFileError([`${where}not valid JSON: ${(err as Error).message}`]);
    }
    arr.forEach((raw, i) => items.push({ where: `post ${i + 1}`, raw }));
  } else {
    trimmed.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      try {
        items.push({ where: `line ${i + 1}`, raw: JSON.parse(line) });
      } catch (err) {
        problems.push(`line ${i + 1}: not valid JSON: ${(err as Error).message}`);
      }
    });
  }
  const posts: Post[] = [];
  const seen = new Map<number, string>();
  for (const { where, raw } of items) {
    const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'number' ? (raw as { id: number }).id : null;
    const label = id !== null && !where.startsWith('line') ? `${where} (id ${id})` : where;
    const parsed = PostSchema.safeParse(raw);
    if (!parsed.success) {
      for (const p of formatZodIssues(parsed.error)) problems.push(`${label}: ${p.replace(/^\(root\): /, '')}`);
      continue;
    }
    const before = seen.get(parsed.data.id);
    if (before) problems.push(`${label}: id: ${parsed.data.id} is used again (first in ${before})`);
    seen.set(parsed.data.id, label);
    posts.push(parsed.data);
  }
  if (problems.length) throw new PostsFileError(problems);
  return posts;
}

interface PostRow {
  id: number;
  url: string;
  title: string;
  status: PostStatus;
  author: string;
  type: string;
  created: string | null;
  modified: string | null;
  language: string | null;
  terms: string;
  show_in_search: number;
  superwords: string;
  content: string;
}

function fromRow(r: PostRow): Post {
  return {
    id: r.id,
    url: r.url,
    title: r.title,
    status: r.status,
    author: r.author,
    type: r.type,
    created: r.created,
    modified: r.modified,
    language: r.language,
    terms: JSON.parse(r.terms) as Record<string, string[]>,
    show_in_search: r.show_in_search === 1,
    superwords: JSON.parse(r.superwords) as string[],
    content: r.content,
  };
}

/** Inserts or replaces posts by id, all in one transaction. Returns how many were written. */
export function importPosts(store: Store, posts: readonly Post[]): number {
  const stmt = store.db.prepare(`
    INSERT INTO posts (id, url, title, status, author, type, created, modified, language, terms, show_in_search, superwords, content)
    VALUES (@id, @url, @title, @status, @author, @type, @created, @modified, @language, @terms, @show_in_search, @superwords, @content)
    ON CONFLICT(id) DO UPDATE SET url = excluded.url, title = excluded.title, status = excluded.status, author = excluded.author,
      type = excluded.type, created = excluded.created, modified = excluded.modified, language = excluded.language,
      terms = excluded.terms, show_in_search = excluded.show_in_search, superwords = excluded.superwords, content = excluded.content`);
  store.tx(() => {
    for (const p of posts) {
      stmt.run({ ...p, terms: JSON.stringify(p.terms), superwords: JSON.stringify(p.superwords), show_in_search: p.show_in_search ? 1 : 0 });
    }
  });
  return posts.length;
}

export function getPost(store: Store, id: number): Post | null {
  const row = store.prepare('SELECT * FROM posts WHERE id = ?').get(id) as PostRow | undefined;
  return row ? fromRow(row) : null;
}

/** Every post, by id. */
export function listPosts(store: Store): Post[] {
  return (store.db.prepare('SELECT * FROM posts ORDER BY id').all() as PostRow[]).map(fromRow);
}

/**
 * The page meta of a post (DESIGN.md §2): what the CMS publishes in the page's svc-page-meta script and the crawler
 * indexes. Only a published post with show_in_search is shown in search; only a published post is tagged `public`.
 */
export function pageMetaOfPost(post: Post): PageMeta {
  const isPublic = post.status === 'publish';
  const tags: string[] = [];
  if (isPublic) tags.push('public');
  tags.push(`post_type/${post.type}`);
  for (const [taxonomy, terms] of Object.entries(post.terms)) for (const term of terms) tags.push(`taxonomy/${taxonomy}/${term}`);
  tags.push(`domain/${new URL(post.url).host}`);
  return {
    showInSearch: isPublic && post.show_in_search,
    title: post.title,
    url: post.url,
    created: post.created,
    modified: post.modified,
    language: post.language,
    tags,
    customFields: { postId: { type: 'number', value: post.id } },
    superwords: post.superwords,
  };
}
