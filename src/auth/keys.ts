// /v1 API keys: made once and shown once, stored only as a sha256 hash, checked in constant time, tied to one project.
import type { ApiKeyInfo } from '../model/users.js';
import { apiKeyByHash, deleteApiKey, insertApiKey, listApiKeys as listKeyRows } from '../store/api-keys.js';
import type { Store } from '../store/store.js';
import { hashSecret, newSecret, sameHash } from './secrets.js';

export const API_KEY_PREFIX = 'svc_key_';
/** Longer than any key we make; anything longer is refused before hashing. */
const MAX_KEY_LENGTH = 256;

/** Makes a key for `project`. The returned `key` is the only copy: the store keeps its hash. */
export function createApiKey(store: Store, project: string, name = ''): { key: string; info: ApiKeyInfo } {
  const key = newSecret(API_KEY_PREFIX);
  return { key, info: insertApiKey(store, project, name, hashSecret(key)) };
}

/**
 * The key's record, or null for an unknown key. The lookup is by hash (which tells a caller nothing about
 * stored keys), and the found hash is compared again in constant time.
 */
export function verifyApiKey(store: Store, key: string): ApiKeyInfo | null {
  if (!key || key.length > MAX_KEY_LENGTH) return null;
  const hash = hashSecret(key);
  const found = apiKeyByHash(store, hash);
  return found && sameHash(found.keyHash, hash) ? found.info : null;
}

/** Keys of a project (or of every project), oldest first; never the keys themselves. */
export function listApiKeys(store: Store, project?: string): ApiKeyInfo[] {
  return listKeyRows(store, project);
}

/** Removes a key of `project`; true when there was one. */
export function revokeApiKey(store: Store, project: string, id: number): boolean {
  return deleteApiKey(store, project, id);
}
