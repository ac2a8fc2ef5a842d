// Rows of the api_keys table: only hashes of keys are ever stored.
import type { ApiKeyInfo } from '../model/users.js';
import type { Sql } from './sql.js';

interface KeyRow {
  id: number;
  project: string;
  name: string;
  key_hash: string;
  created_at: string;
}

const toInfo = (r: KeyRow): ApiKeyInfo => ({ id: r.id, project: r.project, name: r.name, createdAt: r.created_at });

export async function insertApiKey(sql: Sql, project: string, name: string, keyHash: string): Promise<ApiKeyInfo> {
  const row = await sql.get<KeyRow>(
    'INSERT INTO api_keys (project, name, key_hash, created_at) VALUES (?, ?, ?, ?) RETURNING *',
    [project, name, keyHash, new Date().toISOString()],
  );
  return toInfo(row!);
}

/** The key stored under this hash, with the stored hash (for a constant-time comparison by the caller). */
export async function apiKeyByHash(sql: Sql, keyHash: string): Promise<{ info: ApiKeyInfo; keyHash: string } | null> {
  const row = await sql.get<KeyRow>('SELECT * FROM api_keys WHERE key_hash = ?', [keyHash]);
  return row ? { info: toInfo(row), keyHash: row.key_hash } : null;
}

/** Keys of a project (or of every project), oldest first. */
export async function listApiKeys(sql: Sql, project?: string): Promise<ApiKeyInfo[]> {
  const rows =
    project === undefined
      ? await sql.all<KeyRow>('SELECT * FROM api_keys ORDER BY id')
      : await sql.all<KeyRow>('SELECT * FROM api_keys WHERE project = ? ORDER BY id', [project]);
  return rows.map(toInfo);
}

/** Removes a key of `project`; true when there was one. */
export async function deleteApiKey(sql: Sql, project: string, id: number): Promise<boolean> {
  return (await sql.run('DELETE FROM api_keys WHERE project = ? AND id = ?', [project, id])).changes > 0;
}
