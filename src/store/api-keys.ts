// Rows of the api_keys table: only hashes of keys are ever stored (and a few first characters, to tell them apart).
// A revoked key's row stays, marked, so that revoking it again can say so; it is never accepted nor listed.
import type { ApiKeyInfo, RevokeOutcome } from '../model/users.js';
import type { Sql } from './sql.js';

interface KeyRow {
  id: number;
  project: string;
  name: string;
  key_hash: string;
  created_at: string;
  prefix: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const toInfo = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  project: r.project,
  name: r.name,
  createdAt: r.created_at,
  prefix: r.prefix,
  lastUsedAt: r.last_used_at,
});

export async function insertApiKey(
  sql: Sql,
  project: string,
  name: string,
  keyHash: string,
  prefix: string,
): Promise<ApiKeyInfo> {
  const row = await sql.get<KeyRow>(
    'INSERT INTO api_keys (project, name, key_hash, created_at, prefix) VALUES (?, ?, ?, ?, ?) RETURNING *',
    [project, name, keyHash, new Date().toISOString(), prefix],
  );
  return toInfo(row!);
}

/** The key stored under this hash, with the stored hash (for a constant-time comparison by the caller). */
export async function apiKeyByHash(sql: Sql, keyHash: string): Promise<{ info: ApiKeyInfo; keyHash: string } | null> {
  const row = await sql.get<KeyRow>('SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL', [keyHash]);
  return row ? { info: toInfo(row), keyHash: row.key_hash } : null;
}

/** Notes a use of the key: at most one write a minute per key, however busy it is. */
export async function touchApiKey(sql: Sql, id: number, now: Date): Promise<void> {
  const minuteAgo = new Date(now.getTime() - 60_000).toISOString();
  await sql.run('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)', [
    now.toISOString(),
    id,
    minuteAgo,
  ]);
}

/** Keys of a project (or of every project) not revoked, oldest first. */
export async function listApiKeys(sql: Sql, project?: string): Promise<ApiKeyInfo[]> {
  const rows =
    project === undefined
      ? await sql.all<KeyRow>('SELECT * FROM api_keys WHERE revoked_at IS NULL ORDER BY id')
      : await sql.all<KeyRow>('SELECT * FROM api_keys WHERE project = ? AND revoked_at IS NULL ORDER BY id', [project]);
  return rows.map(toInfo);
}

/** Revokes a key of `project`: it is refused from now on; a second revoke, or an unknown id, is said so. */
export async function revokeApiKeyRow(sql: Sql, project: string, id: number): Promise<RevokeOutcome> {
  const done = await sql.run('UPDATE api_keys SET revoked_at = ? WHERE project = ? AND id = ? AND revoked_at IS NULL', [
    new Date().toISOString(),
    project,
    id,
  ]);
  if (done.changes > 0) return 'revoked';
  const row = await sql.get<{ id: number }>('SELECT id FROM api_keys WHERE project = ? AND id = ?', [project, id]);
  return row ? 'already_revoked' : 'not_found';
}
