// Rows of the api_keys table: only hashes of keys are ever stored.
import type { ApiKeyInfo } from '../model/users.js';
import type { Store } from './store.js';

interface KeyRow {
  id: number;
  project: string;
  name: string;
  key_hash: string;
  created_at: string;
}

const toInfo = (r: KeyRow): ApiKeyInfo => ({ id: r.id, project: r.project, name: r.name, createdAt: r.created_at });

export function insertApiKey(store: Store, project: string, name: string, keyHash: string): ApiKeyInfo {
  const row = store.db
    .prepare('INSERT INTO api_keys (project, name, key_hash, created_at) VALUES (?, ?, ?, ?) RETURNING *')
    .get(project, name, keyHash, new Date().toISOString()) as KeyRow;
  return toInfo(row);
}

/** The key stored under this hash, with the stored hash (for a constant-time comparison by the caller). */
export function apiKeyByHash(store: Store, keyHash: string): { info: ApiKeyInfo; keyHash: string } | null {
  const row = store.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(keyHash) as KeyRow | undefined;
  return row ? { info: toInfo(row), keyHash: row.key_hash } : null;
}

/** Keys of a project (or of every project), oldest first. */
export function listApiKeys(store: Store, project?: string): ApiKeyInfo[] {
  const rows = (
    project === undefined
      ? store.db.prepare('SELECT * FROM api_keys ORDER BY id').all()
      : store.db.prepare('SELECT * FROM api_keys WHERE project = ? ORDER BY id').all(project)
  ) as KeyRow[];
  return rows.map(toInfo);
}

/** Removes a key of `project`; true when there was one. */
export function deleteApiKey(store: Store, project: string, id: number): boolean {
  return store.db.prepare('DELETE FROM api_keys WHERE project = ? AND id = ?').run(project, id).changes > 0;
}
