// /v1 API keys: made once and shown once, stored only as a sha256 hash, checked in constant time, tied to one project.
import type { ApiKeyInfo } from '../model/users.js';
import { apiKeyByHash, deleteApiKey, insertApiKey, listApiKeys as listKeyRows } from '../store/api-keys.js';
import type { Sql } from '../store/sql.js';
import { hashSecret, newSecret, sameHash } from './secrets.js';

export const API_KEY_PREFIX = 'svc_key_';
/** Longer than any key we make; anything longer is refused before hashing. */
const MAX_KEY_LENGTH = 256;

/** Makes a key for `project`. The returned `key` is the only copy: the store keeps its hash. */
export async function createApiKey(sql: Sql, project: string, name = ''): Promise<{ key: string; info: ApiKeyInfo }> {
  const key = newSecret(API_KEY_PREFIX);
  return { key, info: await insertApiKey(sql, project, name, hashSecret(key)) };
}

/**
 * The key's record, or null for an unknown key. The lookup is by hash (which tells a caller nothing about
 * stored keys), and the found hash is compared again in constant time.
 */
export async function verifyApiKey(sql: Sql, key: string): Promise<ApiKeyInfo | null> {
  if (!key || key.length > MAX_KEY_LENGTH) return null;
  const hash = hashSecret(key);
  const found = await apiKeyByHash(sql, hash);
  return found && sameHash(found.keyHash, hash) ? found.info : null;
}

/** Keys of a project (or of every project), oldest first; never the keys themselves. */
export function listApiKeys(sql: Sql, project?: string): Promise<ApiKeyInfo[]> {
  return listKeyRows(sql, project);
}

/** Removes a key of `project`; true when there was one. */
export function revokeApiKey(sql: Sql, project: string, id: number): Promise<boolean> {
  return deleteApiKey(sql, project, id);
}
