// The host of the abilities (what MCP and the ability routes run on), built on an opened app: its backend, its
// users and its posts, with host.posts_file loaded first.
import { createAbilityHost, type Host } from '../abilities/runtime.js';
import { getUser, userByToken } from '../auth/users.js';
import { CrawlTasks } from '../backend/crawl-tasks.js';
import { getPost } from '../store/posts.js';
import type { App } from './open-app.js';
import { loadPostsFile } from './posts.js';

export type { Host };

export interface CreateHostOptions {
  /** Clock of the link-report cache (ms); tests move it. */
  now?: () => number;
}

/** The host of the abilities on this app's store and backend (posts_file loaded first). */
export async function createHost(app: App, opts: CreateHostOptions = {}): Promise<Host> {
  await loadPostsFile(app);
  return createAbilityHost({
    version: app.config.host.version,
    backend: app.backend,
    targets: app.config.targets,
    logger: app.logger,
    getPost: (id) => getPost(app.store.sql, id),
    userByLogin: (login) => getUser(app.store.sql, login),
    userByToken: (token) => userByToken(app.store.sql, token),
    crawlTasks: new CrawlTasks({ sql: app.store.sql, backend: app.backend }),
    now: opts.now,
  });
}
