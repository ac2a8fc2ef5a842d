// The host's posts: the posts file format (JSON array or NDJSON) and the page meta of a post, the one
// implementation the ability layer and the demo site's page renderer both use.
import { formatZodIssues } from '../lib/zod-issues.js';
import type { PageMeta } from '../model/types.js';
import { PostSchema, type Post } from '../model/posts.js';

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
    arr.forEach((raw, i) => {
      items.push({ where: `post ${i + 1}`, raw });
    });
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
    const id =
      raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'number'
        ? (raw as { id: number }).id
        : null;
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

/**
 * The page meta of a post: what the CMS publishes in the page's svc-page-meta script and the crawler
 * indexes. Only a published post with show_in_search is shown in search; only a published post is tagged `public`.
 */
export function pageMetaOfPost(post: Post): PageMeta {
  const isPublic = post.status === 'publish';
  const tags: string[] = [];
  if (isPublic) tags.push('public');
  tags.push(`post_type/${post.type}`);
  for (const [taxonomy, terms] of Object.entries(post.terms))
    for (const term of terms) tags.push(`taxonomy/${taxonomy}/${term}`);
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
