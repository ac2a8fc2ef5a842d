// Where the requestState signing key lives: a server key (server-key.ts) that every process which may receive a
// confirmation's retry holds alike; and the store's list of states already spent, which every such process reads.
import { spendOnce } from '../store/spent-once.js';
import type { Sql } from '../store/sql.js';
import { REQUEST_STATE_KEY_BYTES, REQUEST_STATE_TTL_MS } from './request-state.js';
import { hashSecret } from './secrets.js';
import {
  decodeServerKey,
  serverKey,
  serverKeyFromDatabase,
  serverKeyFromDataDir,
  type ServerKeySpec,
} from './server-key.js';

export const REQUEST_STATE_KEY_FILE = 'request-state.key';

const SPEC: ServerKeySpec = {
  file: REQUEST_STATE_KEY_FILE,
  name: 'request_state',
  bytes: REQUEST_STATE_KEY_BYTES,
  what: 'a request state key',
  lossIfReplaced: 'confirmations in flight are then asked again',
};

/** The key written as `text` (base64url), or an error naming where it came from and what is wrong. */
export function decodeRequestStateKey(text: string, where: string): Buffer {
  return decodeServerKey(SPEC, text, where);
}

/** The key in `<dataDir>/request-state.key`, made on first use. */
export function requestStateKeyFromDataDir(dataDir: string): Buffer {
  return serverKeyFromDataDir(SPEC, dataDir);
}

/** The key shared by every process on a PostgreSQL database (its server_keys row), made by the first to ask. */
export async function requestStateKeyFromDatabase(sql: Sql): Promise<Buffer> {
  return serverKeyFromDatabase(SPEC, sql);
}

/** The key for a store: its server_keys row on PostgreSQL, else the file in `dataDir` beside the SQLite database. */
export async function requestStateKey(sql: Sql, dataDir: string): Promise<Buffer> {
  return serverKey(SPEC, sql, dataDir);
}

/** Spends a requestState for its one deletion (at `now`, ms); false when it was spent before. Stores only its hash. */
export function spendRequestState(sql: Sql, state: string, now: number): Promise<boolean> {
  return spendOnce(sql, 'requestState', hashSecret(state), now + REQUEST_STATE_TTL_MS, now);
}
