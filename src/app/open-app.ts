// The composition root: config → logger → store → backend, for every project of the config. Everything is built
// here and handed down as plain dependencies; nothing below receives App. The host (abilities, MCP) is built on it
// in host.ts, its posts in posts.ts, and its HTTP half, loaded only by `svc serve`, in http.ts. openApp has every
// store's module loaded; the commands use loadApp (assemble-app.ts), which loads PostgreSQL's only when configured.
import type { Backend } from '../backend/backend.js';
import type { Logger } from '../lib/log.js';
import type { Config } from '../model/config.js';
import { PgStore } from '../store/pg/store.js';
import type { ServiceStore } from '../store/service-store.js';
import type { Store } from '../store/sqlite/store.js';
import { assembleApp } from './assemble-app.js';

// While the tests and benchmarks move off openApp: they import loadApp from where App is.
export { loadApp } from './assemble-app.js';
import type { ProjectApp, ProjectOptions } from './project.js';

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
}

/**
 * Opens every project of the config (one in the single form), each on its own database with its own backend. A
 * command that acts on one project opens the config forProject(config, token) gives it, so only that one opens.
 */
export function openApp(config: Config, opts: OpenAppOptions = {}): App {
  return assembleApp(config, opts, PgStore);
}
