// Opening the app of a config (openApp's body), and loadApp: the same for a command, with the PostgreSQL store's
// module (and pg) imported only when the config names a database_url, so a crawl on SQLite starts without them.
import { resolve } from 'node:path';
import { createLogger } from '../lib/log.js';
import { forProject, projectsOf, type Config } from '../model/config.js';
import type { PgStore } from '../store/pg/store.js';
import { looseDirProblem } from '../store/private-files.js';
import type { App, OpenAppOptions } from './open-app.js';
import { openProject, type ProjectApp } from './project.js';

/** openApp for a command: the PostgreSQL store's module is loaded only when the config names a database. */
export async function loadApp(config: Config, opts: OpenAppOptions = {}): Promise<App> {
  const pgStore = config.database_url ? (await import('../store/pg/store.js')).PgStore : null;
  return assembleApp(config, opts, pgStore);
}

/**
 * Opens every project of the config (one in the single form), each on its own database with its own backend, the
 * PostgreSQL ones with `pgStore` (null: not loaded, for a config without database_url). A command that acts on one
 * project opens the config forProject(config, token) gives it, so only that one opens.
 */
export function assembleApp(config: Config, opts: OpenAppOptions, pgStore: typeof PgStore | null): App {
  const logger = opts.logger ?? createLogger(config.log_level);
  const dataDir = resolve(config.data_dir);
  const projects: ProjectApp[] = [];
  try {
    for (const p of projectsOf(config)) {
      const view = forProject(config, p.public_token) as Config;
      // In the projects form every log line of a project says which one.
      projects.push(
        openProject(view, config.projects ? logger.child({ project: p.public_token }) : logger, opts, pgStore),
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
