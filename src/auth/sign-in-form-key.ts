// Where the key that signs sign-in forms lives: a server key (server-key.ts), so a form one process issued is taken
// by any other serving the same data (several `svc serve` behind a load balancer), and a restart spoils no open form.
import type { Sql } from '../store/sql.js';
import { serverKey, type ServerKeySpec } from './server-key.js';

export const SIGN_IN_FORM_KEY_FILE = 'sign-in-form.key';

/** An HMAC-SHA256 key. */
const SPEC: ServerKeySpec = {
  file: SIGN_IN_FORM_KEY_FILE,
  name: 'sign_in_forms',
  bytes: 32,
  what: 'a sign-in form key',
  lossIfReplaced: 'sign-in pages open at that moment ask once more',
};

/** The key for a store: its server_keys row on PostgreSQL, else the file in `dataDir` beside the SQLite database. */
export function signInFormKey(sql: Sql, dataDir: string): Promise<Buffer> {
  return serverKey(SPEC, sql, dataDir);
}
