// The posts file (parsing, page meta) and the post store it fills: the store's part on SQLite and on PostgreSQL.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { pageMetaOfPost, parsePostsFile, PostsFileError } from '../../src/cms/posts.js';
import { makeApp, makeAppOn, ONE_HOST, tempDir } from '../support/app.js';
import { DIALECTS, storeKit } from '../support/stores.js';
import { openAbilityHost } from '../../src/app/ability-host.js';
import { getPost, importPosts, listPosts } from '../../src/store/posts.js';
import { PostSchema } from '../../src/model/posts.js';

const POST = {
  id: 104,
  url: 'https://example.org/blog/post-4',
  title: 'Volunteer weekend report',
  status: 'publish',
  author: 'alice',
  type: 'post',
  created: '2026-05-01T09:00:00Z',
  modified: '2026-10-04T08:00:00Z',
  language: 'en',
  terms: { category: ['society'], post_tag: ['volunteers', 'weekend'] },
  show_in_search: true,
  superwords: ['volunteering'],
};

function problems(text: string): string[] {
  try {
    parsePostsFile(text);
  } catch (err) {
    if (err instanceof PostsFileError) return err.problems;
    throw err;
  }
  throw new Error('expected a PostsFileError');
}

describe('posts file', () => {
  it('reads a JSON array and NDJSON alike', () => {
    const second = { ...POST, id: 105, status: 'draft' };
    const fromArray = parsePostsFile(JSON.stringify([POST, second], null, 2));
    const fromNdjson = parsePostsFile(`${JSON.stringify(POST)}\n\n${JSON.stringify(second)}\n`);
    expect(fromArray).toEqual(fromNdjson);
    expect(fromArray.map((p) => p.id)).toEqual([104, 105]);
    expect(fromArray[0]).toMatchObject({ created: '2026-05-01T09:00:00.000Z', content: '' });
  });

  it('fills defaults for optional fields', () => {
    const [p] = parsePostsFile(JSON.stringify([{ id: 1, url: 'https://e.org/', status: 'publish', author: 'a' }]));
    expect(p).toEqual({
      id: 1,
      url: 'https://e.org/',
      title: '',
      status: 'publish',
      author: 'a',
      type: 'post',
      created: null,
      modified: null,
      language: null,
      terms: {},
      show_in_search: true,
      superwords: [],
      content: '',
    });
  });

  it('names the line and field of each NDJSON problem', () => {
    const text = [
      JSON.stringify(POST),
      JSON.stringify({ ...POST, id: 2, status: 'published' }),
      '{oops',
      JSON.stringify({ ...POST, id: 3, url: 'not a url', colour: 1 }),
    ].join('\n');
    const p = problems(text);
    expect(p).toContainEqual(
      expect.stringMatching(/^line 2: status: must be one of publish, private, draft, pending, future$/),
    );
    expect(p).toContainEqual(expect.stringMatching(/^line 3: not valid JSON/));
    expect(p).toContainEqual(expect.stringMatching(/^line 4: url: must be a full http\(s\) URL$/));
    expect(p).toContainEqual(expect.stringMatching(/^line 4: .*unknown field\(s\) "colour"/));
  });

  it('names the entry (and its id) of each JSON array problem', () => {
    const p = problems(
      JSON.stringify([POST, { ...POST, id: 7, created: 'yesterday' }, { ...POST, id: 'x' }, { ...POST }]),
    );
    expect(p).toContainEqual('post 2 (id 7): created: must be an ISO 8601 date-time, e.g. 2026-05-01T09:00:00Z');
    expect(p).toContainEqual(expect.stringMatching(/^post 3: id: must be a whole number/));
    expect(p).toContainEqual(
      expect.stringMatching(/^post 4 \(id 104\): id: 104 is used again \(first in post 1 \(id 104\)\)/),
    );
  });

  it('reports the line of a JSON syntax error in an array file', () => {
    expect(problems('[\n{"id": 1},\n{"id": 2,,}\n]')[0]).toMatch(/^line 3: not valid JSON/);
  });
});

describe('pageMetaOfPost', () => {
  it('computes the page meta of a post: its title, URL, dates, language, tags from status, type, terms and domain, custom fields and superwords', () => {
    expect(pageMetaOfPost(PostSchema.parse(POST))).toEqual({
      showInSearch: true,
      title: 'Volunteer weekend report',
      url: 'https://example.org/blog/post-4',
      created: '2026-05-01T09:00:00.000Z',
      modified: '2026-10-04T08:00:00.000Z',
      language: 'en',
      tags: [
        'public',
        'post_type/post',
        'taxonomy/category/society',
        'taxonomy/post_tag/volunteers',
        'taxonomy/post_tag/weekend',
        'domain/example.org',
      ],
      customFields: { postId: { type: 'number', value: 104 } },
      superwords: ['volunteering'],
    });
  });

  it('a non-public post is neither tagged public nor shown in search; show_in_search false hides a public one', () => {
    const priv = pageMetaOfPost(
      PostSchema.parse({ ...POST, status: 'private', type: 'page', url: 'http://127.0.0.1:8080/p' }),
    );
    expect(priv.showInSearch).toBe(false);
    expect(priv.tags).toEqual([
      'post_type/page',
      'taxonomy/category/society',
      'taxonomy/post_tag/volunteers',
      'taxonomy/post_tag/weekend',
      'domain/127.0.0.1:8080',
    ]);
    expect(pageMetaOfPost(PostSchema.parse({ ...POST, show_in_search: false }))).toMatchObject({
      showInSearch: false,
      tags: expect.arrayContaining(['public']),
    });
  });
});

describe('host.posts_file', () => {
  let app: App;
  afterEach(async () => app?.close());

  it('a bad posts file stops the host with the file, line and field named', async () => {
    const file = join(tempDir(), 'posts.ndjson');
    writeFileSync(file, `${JSON.stringify({ ...POST, status: 'live' })}\n`);
    app = await makeApp({ host: { posts_file: file } }, ONE_HOST);
    await expect(openAbilityHost(app)).rejects.toThrow(
      /host\.posts_file .*posts\.ndjson[\s\S]*line 1: status: must be one of/,
    );
  });

  it('a missing posts file is named', async () => {
    app = await makeApp({ host: { posts_file: '/nonexistent/posts.json' } }, ONE_HOST);
    await expect(openAbilityHost(app)).rejects.toThrow(
      /host\.posts_file: cannot read \/nonexistent\/posts\.json: ENOENT/,
    );
  });
});

describe.each(DIALECTS)('the post store on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('imports (upserting by id) and reads back', async () => {
    const app = await makeAppOn(kit, {}, ONE_HOST);
    try {
      const posts = parsePostsFile(JSON.stringify([POST]));
      expect(await importPosts(app.store.sql, posts)).toBe(1);
      expect(await getPost(app.store.sql, 104)).toEqual(posts[0]);
      await importPosts(app.store.sql, [{ ...posts[0]!, title: 'Renamed', status: 'private' }]);
      expect(await getPost(app.store.sql, 104)).toMatchObject({ title: 'Renamed', status: 'private' });
      expect(await listPosts(app.store.sql)).toHaveLength(1);
      expect(await getPost(app.store.sql, 1)).toBeNull();
    } finally {
      await app.close();
    }
  });

  it('is loaded when the host is created', async () => {
    const file = join(tempDir(), 'posts.ndjson');
    writeFileSync(file, `${JSON.stringify(POST)}\n`);
    const app = await makeAppOn(kit, { host: { posts_file: file } }, ONE_HOST);
    try {
      (await openAbilityHost(app)).close();
      expect(await getPost(app.store.sql, 104)).toMatchObject({ title: 'Volunteer weekend report' });
    } finally {
      await app.close();
    }
  });
});
