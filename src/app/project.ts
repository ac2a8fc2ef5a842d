// One project of the config, opened for serving: its database (a SQLite file, or a schema of the PostgreSQL
// database), its backend (embedded, or remote at api.base_url) and its webhook deliverer, wired together. The remote
// backend's module (and the /v1 contract's schemas it checks answers with) is loaded by loadApp only for a config
// with api.base_url, as the PostgreSQL store only for one with database_url.
import { join, resolve } from 'node:path';
import type { Backend } from '../backend/backend.js';
import { EmbeddedBackend } from '../backend/embedded.js';
import type { ShareOptions } from '../backend/crawl-runs/run.js';
import type { RemoteBackend } from '../backend/remote.js';
import type { WebhookDeliverer } from '../backend/webhooks/deliverer.js';
import type { ReceiversContext } from '../backend/webhooks/receivers.js';
import type { Logger } from '../lib/log.js';
import type { Config } from '../model/config.js';
import type { PgStore } from '../store/pg/store.js';
import type { ServiceStore } from '../store/service-store.js';
import { openStore, sqliteStore, type Store } from '../store/sqlite/store.js';

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
  /** What the webhook receivers added in the console act on (the backend's receivers functions take it). */
  readonly webhookReceivers: ReceiversContext;
  /** What `svc serve` does besides answering: runs queued crawls in their turn and the project's schedules. */
  runUnattended(): void;
  /** Starts sending the project's webhook outbox (every second, and at once when a crawl ends here). */
  startWebhookDeliveries(): Promise<void>;
  /** One round of the outbox: the deliveries due now; how many were sent. */
  deliverWebhooksOnce(): Promise<number>;
  close(why?: string): Promise<void>;
}

export interface ProjectOptions {
  /** Read commands on a data directory they may not write: no migration, no crawl clean-up. */
  readonly?: boolean;
  /** `svc worker`: the crawls it claims are shared with other workers, and it joins theirs. */
  share?: ShareOptions;
  /** The environment of the command opening it, for the overrides below (default: this process's). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** A positive whole number from the environment (a test's or benchmark's override), else undefined (the default). */
function envMs(env: ProjectOptions['env'], name: string): number | undefined {
  const v = Number((env ?? process.env)[name]);
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
function openProjectStore(
  config: Config,
  token: string,
  opts: {
    readonly?: boolean;
    deadAfterMs?: number;
    env: ProjectOptions['env'];
    onRecovered: (ids: readonly number[]) => void;
    logger: Logger;
    /** The PostgreSQL store, loaded by whoever opens the app when the config names a database (loadApp). */
    pgStore: typeof PgStore | null;
  },
): ServiceStore {
  if (config.database_url) {
    const { logger, pgStore } = opts;
    if (!pgStore) throw new Error('database_url is set but the PostgreSQL store was not loaded');
    return new pgStore({
      url: config.database_url,
      token,
      readonly: opts.readonly,
      deadAfterMs: opts.deadAfterMs,
      onRecovered: opts.onRecovered,
      outage: {
        // How long statements wait for a server that stopped answering (default 60 s).
        maxWaitMs: envMs(opts.env, 'SVC_PG_OUTAGE_WAIT_MS'),
        onChange: (event, state) =>
          event === 'lost'
            ? logger.warn(
                { reason: state.reason },
                'PostgreSQL stopped answering: statements wait for it, so crawls pause and requests wait',
              )
            : logger.info({ downMs: Date.now() - state.since }, 'PostgreSQL answers again: crawls go on'),
      },
    });
  }
  const store = openStore({
    path: projectDatabaseFile(config, token),
    readonly: opts.readonly,
    deadAfterMs: opts.deadAfterMs,
  });
  if (store.recoveredCrawls.length) opts.onRecovered(store.recoveredCrawls);
  return store;
}

/** The modules a project's config may need beyond SQLite and the embedded backend, loaded by whoever opens the app. */
export interface ProjectModules {
  /** The PostgreSQL store: for a config with database_url. */
  pgStore: typeof PgStore | null;
  /** The remote backend: for a config with api.base_url. */
  remoteBackend: typeof RemoteBackend | null;
}

/** Opens one project: `config` is its view (forProject); `modules` holds what its database_url or api.base_url needs. */
export function openProject(
  config: Config,
  logger: Logger,
  opts: ProjectOptions,
  { pgStore, remoteBackend }: ProjectModules,
): ProjectApp {
  const token = config.project.public_token;
  // How long a crawl's owner may stay silent before the crawl is dead (default 30 s).
  const deadAfterMs = envMs(opts.env, 'SVC_CRAWL_DEAD_AFTER_MS');
  // How long a dead process's claims and host slots in a shared crawl stay taken (default 20 s; a test's override).
  const leaseMs = envMs(opts.env, 'SVC_SHARED_LEASE_MS');
  const store = openProjectStore(config, token, {
    readonly: opts.readonly,
    deadAfterMs,
    env: opts.env,
    onRecovered: (crawls) => logger.warn({ crawls }, 'crawls left running by a process that ended were marked failed'),
    logger,
    pgStore,
  });
  const { base_url, api_key, public_token } = config.api;
  let backend: Backend;
  let embedded: EmbeddedBackend | null = null;
  try {
    if (base_url) {
      if (!api_key || !public_token)
        throw new Error('api.base_url needs api.api_key and api.public_token (SVC_API_KEY, SVC_PUBLIC_TOKEN)');
      if (!remoteBackend) throw new Error('api.base_url is set but the remote backend was not loaded');
      backend = new remoteBackend({ baseUrl: base_url, apiKey: api_key, publicToken: public_token, logger });
    } else {
      backend = embedded = new EmbeddedBackend({
        config,
        store,
        logger,
        deadAfterMs,
        leaseMs,
        share: opts.share && { ...opts.share, leaseMs: opts.share.leaseMs ?? leaseMs },
        // How often the scheduler looks for a schedule another process changed (default 10 s; a test's override).
        scheduleRereadMs: envMs(opts.env, 'SVC_SCHEDULE_REREAD_MS'),
        // How often a running crawl looks for a stop asked by another process (default 2 s; a test's override).
        heartbeatMs: envMs(opts.env, 'SVC_CRAWL_HEARTBEAT_MS'),
      });
    }
  } catch (err) {
    void store.close();
    throw err;
  }
  // The deliverer, the receivers and the secrets key (and undici) load only where webhooks are sent.
  let deliverer: Promise<WebhookDeliverer | null> | null = null;
  // The first wait before a failed webhook delivery is tried again (default 10 s).
  const retryBase = envMs(opts.env, 'SVC_WEBHOOK_RETRY_BASE_MS');
  // Receivers may be added in the console at any time, so the outbox is looked at even when the config lists none.
  const webhooksHere = backend.kind === 'embedded' && !store.readonly;
  // The key that seals added receivers' secrets: read (or made) when one is first added or sent to.
  let readSecretsKey: Promise<() => Promise<Buffer>> | null = null;
  const webhookReceivers: ReceiversContext = {
    sql: store.sql,
    project: token,
    // Loaded when first needed; a failed read (an unwritable data directory) is not kept (keyReader).
    secretsKey: async () => {
      readSecretsKey ??= import('../auth/server-key.js').then((k) =>
        k.keyReader(k.WEBHOOK_SECRETS_KEY, store.sql, resolve(config.data_dir)),
      );
      return (await readSecretsKey)();
    },
    configured: config.webhooks,
  };
  const getDeliverer = () =>
    (deliverer ??= webhooksHere
      ? Promise.all([import('../backend/webhooks/deliverer.js'), import('../backend/webhooks/receivers.js')]).then(
          ([{ WebhookDeliverer }, { storedWebhookConfigs }]) =>
            new WebhookDeliverer({
              sql: store.sql,
              project: token,
              webhooks: config.webhooks,
              stored: () => storedWebhookConfigs(webhookReceivers),
              logger,
              retry: retryBase ? { baseDelayMs: retryBase } : {},
            }),
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
    webhookReceivers,
    runUnattended() {
      if (embedded) embedded.runUnattended();
      else if (config.schedule.full || config.schedule.partial)
        logger.warn(
          { api: base_url },
          'schedule is ignored here: crawls run in the /v1 service at api.base_url, so put the schedule in its config',
        );
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
