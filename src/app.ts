// The composition root: config → logger → store → backend, and the host the abilities, MCP and HTTP run on.
// Everything is built here and handed down as plain dependencies; nothing below receives App.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createAbilityHost, type Host } from './abilities/runtime.js';
import { getUser, userByToken } from './auth/users.js';
import type { Backend } from './backend/backend.js';
import { EmbeddedBackend } from './backend/embedded.js';
import { RemoteBackend } from './backend/remote.js';
import { parsePostsFile, PostsFileError } from './host/posts.js';
import { createLogger, type Logger } from './lib/log.js';
import { forProject, projectsOf, type Config } from './model/config.js';
import { changePosts, getPost, hasPosts } from './store/posts.js';
import { changedPostUrls } from './host/live-update.js';
import { checkSiteUrl } from './model/site-urls.js';
import type { Post } from './model/posts.js';
import type { CrawlRecord } from './model/types.js';
import { openStore, sqliteStore, type Store } from './store/store.js';
import { PgStore } from './store/pg/store.js';
import { looseDirProblem } from './store/private-files.js';
import type { ServiceStore } from './store/service-store.js';
import type { WebhookDeliverer } from './backend/webhooks/deliverer.js';

export type { Host };

/**
 * One project served here: its own database, its backend (crawl runner, queue, scheduler) and its webhook deliverer.
 * Nothing below the app knows of other projects.
 */
export interface ProjectApp {
  /** The public token (<id>:<region>) /v1/projects/<token>/ names, and the project its keys are made for. */
  readonly token: string;
  /** The config as this project sees it: its targets, schedule and webhooks at the top. */
  readonly config: Config;
  readonly store: ServiceStore;
  /** The same store as SQLite's (its file, its connection): what is SQLite-only; an error naming database_url otherwise. */
  readonly sqlite: Store;
  readonly backend: Backend;
  /** What `svc serve` does besides answering: runs queued crawls in their turn and the project's schedules. */
  runUnattended(): void;
  /** Starts sending the project's webhook outbox (every second, and at once when a crawl ends here). */
  startWebhookDeliveries(): Promise<void>;
  /** One round of the outbox: the deliveries due now; how many were sent. */
  deliverWebhooksOnce(): Promise<number>;
  close(why?: string): Promise<void>;
}

export interface App {
  config: Config;
  logger: Logger;
  /**
   * The first project's database (the only one in the single form): keys, users, OAuth, posts, and (embedded)
   * pages, links and crawls. The host side — posts, users, abilities, MCP — lives here.
   */
  store: ServiceStore;
  /** The first project's store as SQLite's (what is SQLite-only); an error naming database_url with PostgreSQL. */
  readonly sqlite: Store;
  /** The first project's backend: the one the abilities and MCP act on. */
  backend: Backend;
  dataDir: string;
  /** Every project of the config, in its order (one in the single form); the first is store/backend above. */
  projects: ProjectApp[];
  /** The project with this public token, or null when none here has it. */
  project(token: string): ProjectApp | null;
  /**
   * What `svc serve` does besides answering: runs queued crawls in their turn and the config's schedules, for every
   * project. With a remote backend the other service does both.
   */
  runUnattended(): void;
  /** Stops crawls running here (`why`: their records' error) and closes the stores. */
  close(why?: string): Promise<void>;
  /** ok, or degraded once SQLite has reported corruption (what /healthz answers). */
  health(): { status: 'ok' | 'degraded'; error?: string };
  /** Looks at an error that reached the top: SQLite corruption makes the service degraded and is logged once. */
  noteError(err: unknown): void;
  /**
   * Starts sending the webhook outboxes (svc serve): every second, and at once when a crawl ends here. Nothing with a
   * remote backend (its crawls end in the other service) or a read-only store, or without webhooks.
   */
  startWebhookDeliveries(): Promise<void>;
  /** One round of the webhook outboxes (svc crawl before it exits): the deliveries due now; how many were sent. */
  deliverWebhooksOnce(): Promise<number>;
}

export interface OpenAppOptions {
  logger?: Logger;
  /** Read commands on a data directory they may not write: no migration, no crawl clean-up. */
  readonly?: boolean;
  /** `svc worker`: the crawls it claims are shared with other workers, and it joins theirs. */
  share?: { worker: string; pageConcurrency?: number; leaseMs?: number };
}

/** A positive whole number from the environment (a test's or benchmark's override), else undefined (the default). */
function envMs(name: string): number | undefined {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : undefined;
}

/**
 * Where a project's SQLite database lives. The single form keeps <data_dir>/svc.db, as it always was. In the
 * `projects` form each project has a file of its own, <data_dir>/projects/<id>_<region>.db (the token's colon, which
 * some file systems refuse, becomes an underscore; a region has none, so the name stays unambiguous). To keep the data
 * of an svc.db when moving to the projects form, move it to the file of the project that takes its token.
 */
export function projectDatabaseFile(config: Config, token: string): string {
  const dataDir = resolve(config.data_dir);
  if (!config.projects) return join(dataDir, 'svc.db');
  return join(dataDir, 'projects', `${token.replace(':', '_')}.db`);
}

/**
 * Opens a project's store: the one place a database is opened for the app. database_url set: every project on that
 * PostgreSQL database, each in its own schema (projectSchema); else SQLite, a file per project (projectDatabaseFile).
 */
function openProjectStore(config: Config, token: string, opts: { readonly?: boolean; deadAfterMs?: number; onRecovered: (ids: readonly number[]) => void }): ServiceStore {
  if (config.database_url) {
    return new PgStore({ url: config.database_url, token, readonly: opts.readonly, deadAfterMs: opts.deadAfterMs, onRecovered: opts.onRecovered });
  }
  const store = openStore({ path: projectDatabaseFile(config, token), readonly: opts.readonly, deadAfterMs: opts.deadAfterMs });
  if (store.recoveredCrawls.length) opts.onRecovered(store.recoveredCrawls);
  return store;
}

/** Opens one project: `config` is its view (forProject). */
function openProject(config: Config, logger: Logger, opts: OpenAppOptions): ProjectApp {
  const token = config.project.public_token;
  // How long a crawl's owner may stay silent before the crawl is dead (default 30 s).
  const deadAfterMs = envMs('SVC_CRAWL_DEAD_AFTER_MS');
  const store = openProjectStore(config, token, {
    readonly: opts.readonly,
    deadAfterMs,
    onRecovered: (crawls) => logger.warn({ crawls }, 'crawls left running by a process that ended were marked failed'),
  });
  const { base_url, api_key, public_token } = config.api;
  let backend: Backend;
  let embedded: EmbeddedBackend | null = null;
  try {
    if (base_url) {
      if (!api_key || !public_token) throw new Error('api.base_url needs api.api_key and api.public_token (SVC_API_KEY, SVC_PUBLIC_TOKEN)');
      backend = new RemoteBackend({ baseUrl: base_url, apiKey: api_key, publicToken: public_token, logger });
    } else {
      backend = embedded = new EmbeddedBackend({ config, store, logger, deadAfterMs, share: opts.share });
    }
  } catch (err) {
    void store.close();
    throw err;
  }
  // The deliverer (and undici) load only where webhooks are sent.
  let deliverer: Promise<WebhookDeliverer | null> | null = null;
  // The first wait before a failed webhook delivery is tried again (default 10 s).
  const retryBase = envMs('SVC_WEBHOOK_RETRY_BASE_MS');
  const webhooksHere = backend.kind === 'embedded' && !store.readonly && config.webhooks.length > 0;
  const getDeliverer = () =>
    (deliverer ??= webhooksHere
      ? import('./backend/webhooks/deliverer.js').then(
          ({ WebhookDeliverer }) => new WebhookDeliverer({ sql: store.sql, project: token, webhooks: config.webhooks, logger, retry: retryBase ? { baseDelayMs: retryBase } : {} }),
        )
      : Promise.resolve(null));
  return {
    token: backend.publicToken,
    config,
    store,
    get sqlite() {
      return sqliteStore(store);
    },
    backend,
    runUnattended() {
      if (embedded) embedded.runUnattended();
      else if (config.schedule.full || config.schedule.partial) logger.warn({ api: base_url }, 'schedule is ignored here: crawls run in the /v1 service at api.base_url, so put the schedule in its config');
    },
    async startWebhookDeliveries() {
      const d = await getDeliverer();
      if (!d) return;
      d.start();
      backend.onCrawlEnded(() => d.kick());
    },
    async deliverWebhooksOnce() {
      const d = await getDeliverer();
      return d ? d.runOnce() : 0;
    },
    async close(why?: string) {
      await backend.close(why);
      await (await deliverer)?.stop();
      await store.close();
    },
  };
}

/**
 * Opens every project of the config (one in the single form), each on its own database with its own backend. A
 * command that acts on one project opens the config forProject(config, token) gives it, so only that one opens.
 */
export function openApp(config: Config, opts: OpenAppOptions = {}): App {
  const logger = opts.logger ?? createLogger(config.log_level);
  const dataDir = resolve(config.data_dir);
  const projects: ProjectApp[] = [];
  try {
    for (const p of projectsOf(config)) {
      const view = forProject(config, p.public_token) as Config;
      // In the projects form every log line of a project says which one.
      projects.push(openProject(view, config.projects ? logger.child({ project: p.public_token }) : logger, opts));
    }
  } catch (err) {
    for (const p of projects) void p.close();
    throw err;
  }
  const first = projects[0]!;
  const loose = config.database_url || opts.readonly ? null : looseDirProblem(dataDir);
  if (loose) logger.warn({ data_dir: dataDir }, loose);
  let corruption: string | null = null;
  return {
    config,
    logger,
    store: first.store,
    get sqlite() {
      return first.sqlite;
    },
    backend: first.backend,
    dataDir,
    projects,
    project: (token) => projects.find((p) => p.token === token) ?? null,
    runUnattended() {
      for (const p of projects) p.runUnattended();
    },
    health: () => (corruption ? { status: 'degraded', error: corruption } : { status: 'ok' }),
    noteError(err) {
      const code = (err as { code?: unknown })?.code;
      if (corruption || typeof code !== 'string' || !/^SQLITE_(CORRUPT|NOTADB)/.test(code)) return;
      corruption = `${code}: ${(err as Error).message}`;
      const files = projects.map((p) => p.store.location);
      if (files.length === 1) logger.error({ file: files[0], code }, `the database ${files[0]} is damaged: run \`svc repair\` (stop the server first; \`svc check\` lists the problems)`);
      else logger.error({ files, code }, 'the database of a project is damaged: run `svc check --project TOKEN` for each project to find it, then `svc repair --project TOKEN` (stop the server first)');
    },
    async startWebhookDeliveries() {
      for (const p of projects) await p.startWebhookDeliveries();
    },
    async deliverWebhooksOnce() {
      let sent = 0;
      for (const p of projects) sent += await p.deliverWebhooksOnce();
      return sent;
    },
    async close(why?: string) {
      await Promise.all(projects.map((p) => p.close(why)));
    },
  };
}

export interface CreateHostOptions {
  /** Clock of the link-report cache (ms); tests move it. */
  now?: () => number;
}

/** Loads host.posts_file (relative paths from the working directory, like data_dir) into the post store. */
async function loadPostsFile(app: App): Promise<void> {
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
    (r) => app.logger.info({ posts: posts.length, file: path, changed_urls: r.urls.length, crawl: r.crawl?.id ?? null }, 'posts loaded'),
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
export async function applyPostChange(app: App, change: { upsert?: readonly Post[]; remove?: readonly number[] }, opts: { liveUpdate?: boolean } = {}): Promise<PostChangeResult> {
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

async function queueLiveUpdate(app: App, before: Post[], after: Post[], removed: number, opts: { liveUpdate?: boolean }): Promise<PostChangeResult> {
  const urls = changedPostUrls(before, after);
  const done = (crawl: CrawlRecord | null, notQueued: string | null): PostChangeResult => ({ removed, urls, crawl, notQueued });
  if (!urls.length || opts.liveUpdate === false) return done(null, null);
  if (!app.config.host.live_update) return done(null, 'host.live_update is off');
  // Only pages of configured targets can be crawled; a post elsewhere is the business of another service.
  const onTargets = urls.filter((u) => typeof checkSiteUrl(u, app.config.targets) !== 'string');
  if (onTargets.length < urls.length) app.logger.info({ urls: urls.filter((u) => !onTargets.includes(u)) }, 'live update: changed posts not on a configured target are not crawled');
  if (!onTargets.length) return done(null, 'no changed URL is on a configured target');
  try {
    const crawl = await app.backend.queueCrawl({ mode: 'manual', urls: onTargets }, 'live_update');
    app.logger.info({ crawl: crawl.id, mode: crawl.mode, urls: onTargets.length }, 'live update: crawl of the changed posts queued');
    return done(crawl, null);
  } catch (err) {
    app.logger.warn({ err }, 'live update: the crawl of the changed posts could not be queued');
    return done(null, err instanceof Error ? err.message : String(err));
  }
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
    now: opts.now,
  });
}
