// The demo site's content: the hand-written posts in src/demo/content/posts.json, turned into posts of the
// posts-file format for the origin the site is actually served on.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { PostSchema, type Post } from '../model/posts.js';

/** The package root, found from this file whether it runs as src/demo/*.ts or dist/src/demo/*.js. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src', 'demo', 'content'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('cannot find the svc package root (with src/demo/content) above ' + fileURLToPath(import.meta.url));
}

export function contentDir(): string {
  return join(packageRoot(), 'src', 'demo', 'content');
}

/** One entry of content/posts.json: a post with a path instead of a full URL, its body, and demo-only extras. */
const EntrySchema = z
  .object({
    id: z.number().int().min(1),
    url: z.string().regex(/^\/[a-z0-9/_-]*$/, 'must be a path such as /news/x/'),
    title: z.string().min(1),
    status: z.enum(['publish', 'private', 'draft', 'pending', 'future']),
    author: z.string().min(1),
    type: z.enum(['post', 'page']),
    created: z.string(),
    modified: z.string(),
    language: z.enum(['en', 'sv']),
    terms: z.record(z.string(), z.array(z.string())),
    show_in_search: z.boolean(),
    superwords: z.array(z.string()),
    /** The meta description. */
    summary: z.string().min(1),
    /** Day of the event, for the events calendar. */
    event_date: z.iso.date().optional(),
    /** Blocks of the body: paragraphs, "## " headings, "- " lists, ![alt](src) images; [text](href) links inline. */
    body: z.array(z.string().min(1)).min(1),
  })
  .strict();

export type DemoEntry = z.infer<typeof EntrySchema>;

export interface DemoPost {
  post: Post;
  path: string;
  summary: string;
  eventDate: string | null;
  /** The body blocks, as written; rendered by markup.ts. */
  blocks: string[];
}

let cached: DemoEntry[] | null = null;

/** The entries of content/posts.json, validated once. */
export function loadEntries(): DemoEntry[] {
  if (cached) return cached;
  const raw = JSON.parse(readFileSync(join(contentDir(), 'posts.json'), 'utf8')) as unknown;
  const entries = z.array(EntrySchema).parse(raw);
  const ids = new Set<number>();
  const paths = new Set<string>();
  for (const e of entries) {
    if (ids.has(e.id)) throw new Error(`demo content: id ${e.id} is used twice`);
    if (paths.has(e.url)) throw new Error(`demo content: url ${e.url} is used twice`);
    ids.add(e.id);
    paths.add(e.url);
  }
  cached = entries;
  return entries;
}

/** The demo posts for a site served at `origin` (e.g. http://127.0.0.1:8788), each a valid posts-file post. */
export function demoPosts(origin: string): DemoPost[] {
  return loadEntries().map((e) => {
    const { summary, event_date, body, url, ...rest } = e;
    // Parsed by the host's own post schema: the demo posts file is exactly what `svc posts import` reads.
    const post = PostSchema.parse({ ...rest, url: new URL(url, origin).href, content: body.join('\n\n') });
    return { post, path: url, summary, eventDate: event_date ?? null, blocks: body };
  });
}

/** The posts file (a JSON array) of the demo site served at `origin`. */
export function demoPostsFile(origin: string): string {
  return (
    JSON.stringify(
      demoPosts(origin).map((d) => d.post),
      null,
      2,
    ) + '\n'
  );
}
