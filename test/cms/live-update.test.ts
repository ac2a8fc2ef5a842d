// Live update's diff: which page URLs a change of the posts makes stale.
import { describe, expect, it } from 'vitest';
import { changedPostUrls } from '../../src/cms/live-update.js';
import { PostSchema, type Post, type PostInput } from '../../src/model/posts.js';

const post = (over: Partial<PostInput> & { id: number }): Post =>
  PostSchema.parse({
    url: `https://site.example/p${over.id}`,
    status: 'publish',
    author: 'admin',
    title: `Post ${over.id}`,
    ...over,
  });

describe('changedPostUrls', () => {
  it('an unchanged post gives nothing', () => {
    expect(changedPostUrls([post({ id: 1 })], [post({ id: 1 })])).toEqual([]);
  });

  it('a published post whose content, title or terms changed gives its URL', () => {
    expect(changedPostUrls([post({ id: 1, content: 'a' })], [post({ id: 1, content: 'b' })])).toEqual([
      'https://site.example/p1',
    ]);
    expect(changedPostUrls([post({ id: 2 })], [post({ id: 2, title: 'New title' })])).toEqual([
      'https://site.example/p2',
    ]);
    expect(changedPostUrls([post({ id: 3 })], [post({ id: 3, terms: { category: ['news'] } })])).toEqual([
      'https://site.example/p3',
    ]);
  });

  it('a changed URL gives the old and the new one', () => {
    expect(
      changedPostUrls(
        [post({ id: 1, url: 'https://site.example/old' })],
        [post({ id: 1, url: 'https://site.example/new' })],
      ),
    ).toEqual(['https://site.example/old', 'https://site.example/new']);
  });

  it('a newly unpublished or deleted post gives its URL (its page leaves the index); a new published one its URL', () => {
    expect(changedPostUrls([post({ id: 1 })], [post({ id: 1, status: 'draft' })])).toEqual(['https://site.example/p1']);
    expect(changedPostUrls([post({ id: 1 })], [])).toEqual(['https://site.example/p1']);
    expect(changedPostUrls([], [post({ id: 4 })])).toEqual(['https://site.example/p4']);
    expect(changedPostUrls([post({ id: 5, status: 'draft' })], [post({ id: 5 })])).toEqual(['https://site.example/p5']);
  });

  it('changes to posts that are not published before or after change no public page', () => {
    expect(
      changedPostUrls(
        [post({ id: 1, status: 'draft', content: 'a' })],
        [post({ id: 1, status: 'private', content: 'b' })],
      ),
    ).toEqual([]);
    expect(changedPostUrls([post({ id: 2, status: 'draft' })], [])).toEqual([]);
    expect(changedPostUrls([], [post({ id: 3, status: 'pending' })])).toEqual([]);
  });

  it('deduplicates: two posts moving onto one URL give it once', () => {
    const urls = changedPostUrls(
      [post({ id: 1, url: 'https://site.example/a' }), post({ id: 2, url: 'https://site.example/b' })],
      [post({ id: 1, url: 'https://site.example/c' }), post({ id: 2, url: 'https://site.example/c' })],
    );
    expect(urls).toEqual(['https://site.example/a', 'https://site.example/c', 'https://site.example/b']);
  });
});
