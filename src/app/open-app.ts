// The composition root: config → logger → store → backend, for every project of the config. Everything is built
// here and handed down as plain dependencies; nothing below receives App. The host (abilities, MCP) is built on it
// in host.ts, its posts in posts.ts, and its HTTP half, loaded only by `svc serve`, in http.ts. The PostgreSQL
// store's module (and pg) is imported only when the config names a database_url, and the remote backend's only when it
// names an api.base_url, so a crawl on SQLite starts without them; commands and tests open the app the same way,
// through loadApp.
import { resolve } from 'node:path';
import { PasswordHasher, type PasswordCost } from '../auth/passwords.js';
import type { Backend } from '../backend/backend.js';
import { createLogger, type Logger } from '../lib/log.js';
import { forProject, projectsOf, type Config } from '../model/config.js';
import type { ServiceStore } from '../store/service-store.js';
import { looseDirProblem } from '../store/private-files.js';
import type { Store } from '../store/sqlite/store.js';
import { openProject, type ProjectApp, type ProjectOptions } from './project.js';

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
  /** How sign-in passwords are hashed and checked: at OWASP's cost unless opened with another (tests). */
  passwords: PasswordHasher;
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
  /**
   * ok, or degraded once SQLite has reported corruption, or while PostgreSQL does not answer (since: when it
   * stopped) — what /healthz answers.
   */
  health(): { status: 'ok' | 'degraded'; error?: string; since?: string };
  /** Looks at an error that reached the top: SQLite corruption makes the service degraded and is logged once. */
  noteError(err: unknown): void;
  /**
   * Starts sending the webhook outboxes (svc serve): every second, and at once when a crawl ends here. Nothing with a
   * remote backend (its crawls end in the other service) or a read-only store. Receivers may be added in the console
   * at any time, so it runs even when the config lists none.
   */
  startWebhookDeliveries(): Promise<void>;
  /** One round of the webhook outboxes (svc crawl before it exits): the deliveries due now; how many were sent. */
  deliverWebhooksOnce(): Promise<number>;
}

export interface OpenAppOptions extends ProjectOptions {
  logger?: Logger;
  /**
   * scrypt's cost for sign-in passwords (default SCRYPT_PARAMS, OWASP's). svc never sets it and no config or
   * environment reaches it: only tests open an app with a smaller one (in-process commands: Terminal.passwordCost).
   */
  passwordCost?: PasswordCost;
}

/**
 * Opens every project of the config (one in the single form), each on its own database with its own backend, the
 * PostgreSQL ones with the PostgreSQL store, loaded here only for a config with database_url. A command that acts on
 * one project opens the config forProject(config, token) gives it, so only that one opens.
 */
export async function loadApp(config: Config, opts: OpenAppOptions = {}): Promise<App> {
  const pgStore = config.database_url ? (await import('../store/pg/store.js')).PgStore : null;
  const remoteBackend = config.api.base_url ? (await import('../backend/remote.js')).RemoteBackend : null;
  const logger = opts.logger ?? createLogger(config.log_level);
  const dataDir = resolve(config.data_dir);
  const projects: ProjectApp[] = [];
  try {
    for (const p of projectsOf(config)) {
      const view = forProject(config, p.public_token) as Config;
      // In the projects form every log line of a project says which one.
      projects.push(
        openProject(view, config.projects ? logger.child({ project: p.public_token }) : logger, opts, {
          pgStore,
          remoteBackend,
        }),
      );
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
    passwords: new PasswordHasher(opts.passwordCost),
    projects,
    project: (token) => projects.find((p) => p.token === token) ?? null,
    runUnattended() {
      for (const p of projects) p.runUnattended();
    },
    health() {
      if (corruption) return { status: 'degraded', error: corruption };
      // A database server that stopped answering: requests and crawls wait for it.
      for (const p of projects) {
        const down = p.store.unavailable?.();
        if (down)
          return {
            status: 'degraded',
            error: `the database is not answering (${down.reason}); statements wait for it`,
            since: new Date(down.since).toISOString(),
          };
      }
      return { status: 'ok' };
    },
    noteError(err) {
      const code = (err as { code?: unknown })?.code;
      if (corruption || typeof code !== 'string' || !/^SQLITE_(CORRUPT|NOTADB)/.test(code)) return;
      corruption = `${code}: ${(err as Error).message}`;
      const files = projects.map((p) => p.store.location);
      if (files.length === 1)
        logger.error(
          { file: files[0], code },
          `the database ${files[0]} is damaged: run \`svc repair\` (stop the server first; \`svc check\` lists the problems)`,
        );
      else
        logger.error(
          { files, code },
          'the database of a project is damaged: run `svc check --project TOKEN` for each project to find it, then `svc repair --project TOKEN` (stop the server first)',
        );
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
