// /v1 API keys: made once and shown once, stored only as a sha256 hash, checked in constant time, tied to one project.
import type { Store } from '../backend/store/store.js';
import { hashSecret, newSecret, sameHash } from './secrets.js';

export const API_KEY_PREFIX = 'svc_key_';
/** Longer than any key we make; anything longer is refused before hashing. */
const MAX_KEY_LENGTH = 256;

export interface ApiKeyInfo {
  id: number;
  project: string;
  name: string;
  createdAt: string;
}

interface KeyRow {
  id: number;
  project: string;
  name: string;
  key_hash: string;
  created_at: string;
}

const toInfo = (r: KeyRow): ApiKeyInfo => ({ id: r.id, project: r.project, name: r.name, createdAt: r.created_at });

/** Makes a key for `project`. The returned `key` is the only copy: the store keeps its hash. */
export function createApiKey(store: Store, project: string, name = ''): { key: string; info: ApiKeyInfo } {
  const key = newSecret(API_KEY_PREFIX);
  const row = store.db
    .prepare('INSERT INTO api_keys (project, name, key_hash, created_at) VALUES (?, ?, ?, ?) RETURNING *')
    .get(project, name, hashSecret(key), new Date().toISOString()) as KeyRow;
  return { key, info: toInfo(row) };
}

/**
 * The key's record, or null for an unknown key. The lookup is by hash (which tells a caller nothing about
 * stored keys), and the found hash is compared again in constant time.
 */
export function verifyApiKey(store: Store, key: string): ApiKeyInfo | null {
  if (!key || key.length > MAX_KEY_LENGTH) return null;
  const hash = hashSecret(key);
  const row = store.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(hash) as KeyRow | undefined;
  return row && sameHash(row.key_hash, hash) ? toInfo(row) : null;
}

/** Keys of a project (or of every project), oldest first; never the keys themselves. */
export function listApiKeys(store: Store, project?: string): ApiKeyInfo[] {
  const rows = (
    project === undefined
      ? store.db.prepare('SELECT * FROM api_keys ORDER BY id').all()
      : store.db.prepare('SELECT * FROM api_keys WHERE project = ? ORDER BY id').all(project)
  ) as KeyRow[];
  return rows.map(toInfo);
}

/** Removes a key of `project`; true when there was one. */
export function revokeApiKey(store: Store, project: string, id: number): boolean {
  return store.db.prepare('DELETE FROM api_keys WHERE project = ? AND id = ?').run(project, id).changes > 0;
}
