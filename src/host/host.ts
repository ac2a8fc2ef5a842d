// The host: the CMS model the abilities live in — users and the current user, posts, the version gate, and the
// ability registry. The plain functions work on every host version; the abilities exist only from 6.9 on.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { App } from '../app.js';
import { createSvcFunctions, type SvcFunctions } from '../abilities/functions.js';
import { registerSvcAbilities } from '../abilities/index.js';
import { LinkReportCache } from '../abilities/link-report-cache.js';
import { Registry } from '../abilities/registry.js';
import type { AbilityRegistry } from '../abilities/types.js';
import { getUser, userByToken } from '../auth/users.js';
import { getPost, importPosts, parsePostsFile, PostsFileError } from './posts.js';
import type { User } from './types.js';
import { ABILITIES_MIN_VERSION, hasAbilitiesApi } from './version.js';

export interface Host {
  /** host.version from the config. */
  version: string;
  /** The registry; empty (no abilities) when the host version is below 6.9. */
  registry: AbilityRegistry & Pick<Registry, 'categories'>;
  abilitiesEnabled: boolean;
  /** Why there are no abilities, when there are none. */
  disabledReason: string | null;
  /** The plain functions (no capability checks): available on every host version. */
  functions: SvcFunctions;
  userByLogin(login: string): User | null;
  /** The user whose bearer token this is (compared by hash), or null. */
  userByToken(token: string): User | null;
  /** Stops listening to the backend (crawl ends). */
  close(): void;
}

export interface CreateHostOptions {
  /** Clock of the link-report cache (ms); tests move it. */
  now?: () => number;
}

/** Loads host.posts_file (relative paths from the working directory, like data_dir) into the post store. */
function loadPostsFile(app: App): void {
  const file = app.config.host.posts_file;
  if (!file) return;
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`host.posts_file: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const n = importPosts(app.store, parsePostsFile(text));
    app.logger.info({ posts: n, file: path }, 'posts loaded');
  } catch (err) {
    if (err instanceof PostsFileError) throw new Error(`host.posts_file ${path}: ${err.message}`);
    throw err;
  }
}

export function createHost(app: App, opts: CreateHostOptions = {}): Host {
  loadPostsFile(app);
  const version = app.config.host.version;
  const functions = createSvcFunctions({ backend: app.backend, getPost: (id) => getPost(app.store, id), cache: new LinkReportCache({ now: opts.now }) });
  const registry = new Registry({ fns: functions, targets: app.config.targets });
  const abilitiesEnabled = hasAbilitiesApi(version);
  let disabledReason: string | null = null;
  if (abilitiesEnabled) {
    registerSvcAbilities(registry);
  } else {
    disabledReason = `host version ${version} is older than ${ABILITIES_MIN_VERSION}, the first version with the abilities API: no abilities are registered (the plain svc_* functions still work); set host.version to ${ABILITIES_MIN_VERSION} or newer`;
    app.logger.warn({ host_version: version }, disabledReason);
  }
  return {
    version,
    registry,
    abilitiesEnabled,
    disabledReason,
    functions,
    userByLogin: (login) => getUser(app.store, login),
    userByToken: (token) => userByToken(app.store, token),
    close: () => functions.close(),
  };
}
