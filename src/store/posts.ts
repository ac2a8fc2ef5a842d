// Rows of the posts table: the host's post store.
import type { Post, PostStatus } from '../model/posts.js';
import type { Store } from './store.js';

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

/**
 * Writes and deletes posts in one transaction, and answers the posts it touched as they were before and as they are
 * after (a deleted post is only in `before`, a new one only in `after`): what live update compares.
 */
export function changePosts(store: Store, change: { upsert?: readonly Post[]; remove?: readonly number[] }): { before: Post[]; after: Post[]; removed: number } {
  const ids = [...new Set([...(change.upsert ?? []).map((p) => p.id), ...(change.remove ?? [])])];
  const read = () => ids.map((id) => getPost(store, id)).filter((p): p is Post => p !== null);
  return store.tx(() => {
    const before = read();
    if (change.upsert?.length) importPosts(store, change.upsert);
    let removed = 0;
    const del = store.prepare('DELETE FROM posts WHERE id = ?');
    for (const id of change.remove ?? []) removed += del.run(id).changes;
    return { before, after: read(), removed };
  });
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

/** Whether the post store holds any post. */
export function hasPosts(store: Store): boolean {
  return store.prepare('SELECT 1 FROM posts LIMIT 1').get() !== undefined;
}

export function getPost(store: Store, id: number): Post | null {
  const row = store.prepare('SELECT * FROM posts WHERE id = ?').get(id) as PostRow | undefined;
  return row ? fromRow(row) : null;
}

/** Every post, by id. */
export function listPosts(store: Store): Post[] {
  return (store.db.prepare('SELECT * FROM posts ORDER BY id').all() as PostRow[]).map(fromRow);
}

