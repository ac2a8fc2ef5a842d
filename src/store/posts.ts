// Rows of the posts table: the host's post store.
import type { Post, PostStatus } from '../model/posts.js';
import type { Sql } from './sql.js';

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
export async function changePosts(
  sql: Sql,
  change: { upsert?: readonly Post[]; remove?: readonly number[] },
): Promise<{ before: Post[]; after: Post[]; removed: number }> {
  const ids = [...new Set([...(change.upsert ?? []).map((p) => p.id), ...(change.remove ?? [])])];
  const read = async (t: Sql) => {
    const out: Post[] = [];
    for (const id of ids) {
      const p = await getPost(t, id);
      if (p) out.push(p);
    }
    return out;
  };
  return sql.tx(async (t) => {
    const before = await read(t);
    if (change.upsert?.length) await importPosts(t, change.upsert);
    let removed = 0;
    for (const id of change.remove ?? []) removed += (await t.run('DELETE FROM posts WHERE id = ?', [id])).changes;
    return { before, after: await read(t), removed };
  });
}

/** Inserts or replaces posts by id, all in one transaction. Returns how many were written. */
export async function importPosts(sql: Sql, posts: readonly Post[]): Promise<number> {
  await sql.tx(async (t) => {
    for (const p of posts) {
      await t.run(
        `INSERT INTO posts (id, url, title, status, author, type, created, modified, language, terms, show_in_search, superwords, content)
         VALUES (@id, @url, @title, @status, @author, @type, @created, @modified, @language, @terms, @show_in_search, @superwords, @content)
         ON CONFLICT (id) DO UPDATE SET url = excluded.url, title = excluded.title, status = excluded.status, author = excluded.author,
           type = excluded.type, created = excluded.created, modified = excluded.modified, language = excluded.language,
           terms = excluded.terms, show_in_search = excluded.show_in_search, superwords = excluded.superwords, content = excluded.content`,
        {
          id: p.id,
          url: p.url,
          title: p.title,
          status: p.status,
          author: p.author,
          type: p.type,
          created: p.created,
          modified: p.modified,
          language: p.language,
          terms: JSON.stringify(p.terms),
          show_in_search: p.show_in_search ? 1 : 0,
          superwords: JSON.stringify(p.superwords),
          content: p.content,
        },
      );
    }
  });
  return posts.length;
}

/** Whether the post store holds any post. */
export async function hasPosts(sql: Sql): Promise<boolean> {
  return (await sql.get('SELECT 1 AS one FROM posts LIMIT 1')) !== undefined;
}

export async function getPost(sql: Sql, id: number): Promise<Post | null> {
  const row = await sql.get<PostRow>('SELECT * FROM posts WHERE id = ?', [id]);
  return row ? fromRow(row) : null;
}

/** Every post, by id. */
export async function listPosts(sql: Sql): Promise<Post[]> {
  return (await sql.all<PostRow>('SELECT * FROM posts ORDER BY id')).map(fromRow);
}
