// Where the key that seals the console-added webhooks' signing secrets lives: a server key (server-key.ts), so every
// process serving the project can open the secrets it must sign with.
import type { Sql } from '../store/sql.js';
import { serverKey, type ServerKeySpec } from './server-key.js';

export const WEBHOOK_SECRETS_KEY_FILE = 'webhook-secrets.key';

/** AES-256-GCM takes a 32-byte key. */
const SPEC: ServerKeySpec = {
  file: WEBHOOK_SECRETS_KEY_FILE,
  name: 'webhook_secrets',
  bytes: 32,
  what: 'a webhook secrets key',
  lossIfReplaced: 'webhooks added in the console can then no longer be signed: remove and add them again',
};

/** The key for a store: its server_keys row on PostgreSQL, else the file in `dataDir` beside the SQLite database. */
export async function webhookSecretsKey(sql: Sql, dataDir: string): Promise<Buffer> {
  return serverKey(SPEC, sql, dataDir);
}
