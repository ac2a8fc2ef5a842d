// The composition root of the engine: config → logger → store → backend. Upper layers (host, abilities,
// MCP, HTTP) are built on top of an App by their own factories.
import { join, resolve } from 'node:path';
import type { Backend } from './backend/backend.js';
import { EmbeddedBackend } from './backend/embedded.js';
import { RemoteBackend } from './backend/remote.js';
import { openStore, type Store } from './backend/store/store.js';
import type { Config } from './config/schema.js';
import { createLogger, type Logger } from './log.js';

export interface App {
  config: Config;
  logger: Logger;
  /** This service's own database: keys, users, posts, and (embedded) pages, links and crawls. */
  store: Store;
  backend: Backend;
  dataDir: string;
  close(): Promise<void>;
}

export interface OpenAppOptions {
  logger?: Logger;
}

export function openApp(config: Config, opts: OpenAppOptions = {}): App {
  const logger = opts.logger ?? createLogger(config.log_level);
  const dataDir = resolve(config.data_dir);
  const store = openStore({ path: join(dataDir, 'svc.db') });
  if (store.recoveredCrawls.length) logger.warn({ crawls: store.recoveredCrawls }, 'crawls left running by a process that ended were marked failed');
  const { base_url, api_key, public_token } = config.api;
  let backend: Backend;
  if (base_url) {
    if (!api_key || !public_token) throw new Error('api.base_url needs api.api_key and api.public_token (SVC_API_KEY, SVC_PUBLIC_TOKEN)');
    backend = new RemoteBackend({ baseUrl: base_url, apiKey: api_key, publicToken: public_token, logger });
  } else {
    backend = new EmbeddedBackend({ config, store, logger });
  }
  return {
    config,
    logger,
    store,
    backend,
    dataDir,
    async close() {
      await backend.close();
      store.close();
    },
  };
}
