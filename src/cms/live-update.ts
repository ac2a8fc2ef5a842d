// Live update, as the CMS plugin does on post save: which page URLs a change of the host's posts makes stale.
// Pure: the caller reads the posts before and after the change and queues one crawl of the answer.
import { isDeepStrictEqual } from 'node:util';
import type { Post } from '../model/posts.js';

/** Only a published post has a public page: a change to a draft or private post changes nothing a crawl sees. */
function isPublic(post: Post | undefined): post is Post {
  return post?.status === 'publish';
}

/**
 * The URLs to crawl after posts changed, deduplicated, in id order: `before` holds the changed posts as they were
 * (absent: new), `after` as they are (absent: deleted). A post counts when it is published before or after and any
 * field differs (status, URL, title, content, terms…): its old URL when it was published (a page that went away or
 * moved leaves the index), its new URL when it is published. A post that did not change gives nothing.
 */
export function changedPostUrls(before: readonly Post[], after: readonly Post[]): string[] {
  const old = new Map(before.map((p) => [p.id, p]));
  const now = new Map(after.map((p) => [p.id, p]));
  const ids = [...new Set([...old.keys(), ...now.keys()])].sort((a, b) => a - b);
  const urls = new Set<string>();
  for (const id of ids) {
    const was = old.get(id);
    const is = now.get(id);
    if (was && is && isDeepStrictEqual(was, is)) continue;
    if (isPublic(was)) urls.add(was.url);
    if (isPublic(is)) urls.add(is.url);
  }
  return [...urls];
}
