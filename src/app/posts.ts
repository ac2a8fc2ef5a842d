// The host's posts as the app changes them (svc posts import and delete, host.posts_file at start): written to the
// store, then live update queues a crawl of the pages the change made stale.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { changedPostUrls } from '../cms/live-update.js';
import { parsePostsFile, PostsFileError } from '../cms/posts.js';
import type { Post } from '../model/posts.js';
import { checkSiteUrl } from '../model/site-urls.js';
import type { CrawlRecord } from '../model/types.js';
import { changePosts, hasPosts } from '../store/posts.js';
import type { App } from './open-app.js';

/** Loads host.posts_file (relative paths from the working directory, like data_dir) into the post store. */
export async function loadPostsFile(app: App): Promise<void> {
  const file = app.config.host.posts_file;
  if (!file) return;
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`host.posts_file: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let posts: Post[];
  try {
    posts = parsePostsFile(text);
  } catch (err) {
    if (err instanceof PostsFileError) throw new Error(`host.posts_file ${path}: ${err.message}`);
    throw err;
  }
  // The file is loaded at every start: the first load fills an empty post store (the site is crawled anyway) and
  // queues nothing; a later start with a changed file queues the changed pages, as an import would.
  const first = !(await hasPosts(app.store.sql));
  // The posts are written before this returns; only queueing the live update's crawl is left to the promise.
  const queue = await writePostChange(app, { upsert: posts }, { liveUpdate: !first });
  void queue().then(
    (r) =>
      app.logger.info(
        { posts: posts.length, file: path, changed_urls: r.urls.length, crawl: r.crawl?.id ?? null },
        'posts loaded',
      ),
    (err: unknown) => app.logger.error({ err, file: path }, 'loading host.posts_file failed'),
  );
}

export interface PostChangeResult {
  /** Posts deleted (of those asked for). */
  removed: number;
  /** The page URLs the change made stale (live update), on configured targets or not. */
  urls: string[];
  /** The queued live-update crawl they went into (a new one, or the waiting one they were merged into), or null. */
  crawl: CrawlRecord | null;
  /** Why no crawl was queued although URLs changed, or null. */
  notQueued: string | null;
}

/**
 * The one way the host's posts change (svc posts import and delete, host.posts_file): writes them, then — live
 * update, unless host.live_update is false — queues one manual crawl of the URLs of the posts that changed (old and
 * new URL when a URL changed), merged into a live-update crawl still waiting if there is one. The crawl waits in
 * the database for a serving process (`svc serve`) to run it.
 */
export async function applyPostChange(
  app: App,
  change: { upsert?: readonly Post[]; remove?: readonly number[] },
  opts: { liveUpdate?: boolean } = {},
): Promise<PostChangeResult> {
  return (await writePostChange(app, change, opts))();
}

/** applyPostChange in two steps: the posts are written when it resolves; the function it answers queues the crawl. */
async function writePostChange(
  app: App,
  change: { upsert?: readonly Post[]; remove?: readonly number[] },
  opts: { liveUpdate?: boolean },
): Promise<() => Promise<PostChangeResult>> {
  const { before, after, removed } = await changePosts(app.store.sql, change);
  return () => queueLiveUpdate(app, before, after, removed, opts);
}

async function queueLiveUpdate(
  app: App,
  before: Post[],
  after: Post[],
  removed: number,
  opts: { liveUpdate?: boolean },
): Promise<PostChangeResult> {
  const urls = changedPostUrls(before, after);
  const done = (crawl: CrawlRecord | null, notQueued: string | null): PostChangeResult => ({
    removed,
    urls,
    crawl,
    notQueued,
  });
  if (!urls.length || opts.liveUpdate === false) return done(null, null);
  if (!app.config.host.live_update) return done(null, 'host.live_update is off');
  // Only pages of configured targets can be crawled; a post elsewhere is the business of another service.
  const onTargets = urls.filter((u) => typeof checkSiteUrl(u, app.config.targets) !== 'string');
  if (onTargets.length < urls.length)
    app.logger.info(
      { urls: urls.filter((u) => !onTargets.includes(u)) },
      'live update: changed posts not on a configured target are not crawled',
    );
  if (!onTargets.length) return done(null, 'no changed URL is on a configured target');
  try {
    const crawl = await app.backend.queueCrawl({ mode: 'manual', urls: onTargets }, 'live_update');
    app.logger.info(
      { crawl: crawl.id, mode: crawl.mode, urls: onTargets.length },
      'live update: crawl of the changed posts queued',
    );
    return done(crawl, null);
  } catch (err) {
    app.logger.warn({ err }, 'live update: the crawl of the changed posts could not be queued');
    return done(null, err instanceof Error ? err.message : String(err));
  }
}
