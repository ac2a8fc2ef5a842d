// /v1 API keys: made once and shown once, stored only as a sha256 hash, checked in constant time, tied to one project.
import type { ApiKeyInfo, RevokeOutcome } from '../model/users.js';
import {
  apiKeyByHash,
  insertApiKey,
  listApiKeys as listKeyRows,
  revokeApiKeyRow,
  touchApiKey,
} from '../store/api-keys.js';
import type { Sql } from '../store/sql.js';
import { hashSecret, newSecret, sameHash } from './secrets.js';

export const API_KEY_PREFIX = 'svc_key_';
/** Longer than any key we make; anything longer is refused before hashing. */
const MAX_KEY_LENGTH = 256;
/** Characters of a key kept after its prefix to tell it apart: 4 of base64url, 24 bits of a 256-bit secret. */
const SHOWN_CHARS = 4;

/** The part of a key that may be stored and shown. */
export function keyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + SHOWN_CHARS);
}

/** Makes a key for `project`. The returned `key` is the only copy: the store keeps its hash. */
export async function createApiKey(sql: Sql, project: string, name = ''): Promise<{ key: string; info: ApiKeyInfo }> {
  const key = newSecret(API_KEY_PREFIX);
  return { key, info: await insertApiKey(sql, project, name, hashSecret(key), keyPrefix(key)) };
}

/**
 * The key's record, or null for an unknown key. The lookup is by hash (which tells a caller nothing about
 * stored keys), and the found hash is compared again in constant time.
 */
export async function verifyApiKey(sql: Sql, key: string): Promise<ApiKeyInfo | null> {
  if (!key || key.length > MAX_KEY_LENGTH) return null;
  const hash = hashSecret(key);
  const found = await apiKeyByHash(sql, hash);
  if (!found || !sameHash(found.keyHash, hash)) return null;
  // "Last used" is a courtesy: a store that cannot take the write (read-only) still lets the key in.
  await touchApiKey(sql, found.info.id, new Date()).catch(() => undefined);
  return found.info;
}

/** Keys of a project (or of every project), oldest first; never the keys themselves. */
export function listApiKeys(sql: Sql, project?: string): Promise<ApiKeyInfo[]> {
  return listKeyRows(sql, project);
}

/** Revokes a key of `project`: refused by /v1 from now on. */
export function revokeApiKey(sql: Sql, project: string, id: number): Promise<RevokeOutcome> {
  return revokeApiKeyRow(sql, project, id);
}
