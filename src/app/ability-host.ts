// The host of the abilities (what MCP and the ability routes run on), built on an opened app: its backend, its
// users and its posts, with host.posts_file loaded first.
import { createAbilityHost, type AbilityHost } from '../abilities/runtime.js';
import { requestStateKey, spendRequestState } from '../auth/request-state-key.js';
import { getUser, userByToken } from '../auth/users.js';
import { CrawlTasks } from '../backend/crawl-tasks.js';
import { getPost } from '../store/posts.js';
import type { App } from './open-app.js';
import { loadPostsFile } from './posts.js';

export type { AbilityHost };

export interface OpenAbilityHostOptions {
  /** Clock of the link-report cache (ms); tests move it. */
  now?: () => number;
}

/** The confirmation signing key; without one (a data directory this process may not write) deletes are not asked. */
async function confirmationKey(app: App): Promise<Buffer | undefined> {
  try {
    return await requestStateKey(app.store.sql, app.dataDir);
  } catch (err) {
    app.logger.warn({ err }, 'no request state key: svc-delete-pages deletes without asking for a confirmation');
    return undefined;
  }
}

/** The host of the abilities on this app's store and backend (posts_file loaded first). */
export async function openAbilityHost(app: App, opts: OpenAbilityHostOptions = {}): Promise<AbilityHost> {
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
    requestStateKey: await confirmationKey(app),
    spendRequestState: (state, now) => spendRequestState(app.store.sql, state, now),
    project: app.backend.publicToken,
    now: opts.now,
  });
}
