// Webhook receivers added from the console (migration 22): kept per project, the signing secret only sealed.
import type { WebhookEvent } from '../model/webhooks.js';
import type { Sql } from './sql.js';

/** A stored receiver as the store keeps it: the secret still sealed. */
export interface StoredReceiver {
  id: number;
  url: string;
  events: WebhookEvent[];
  allowPrivate: boolean;
  secretSealed: string;
  createdAt: string;
}

interface ReceiverRow {
  id: number;
  url: string;
  events: string;
  allow_private: number;
  secret_sealed: string;
  created_at: string;
}

function toReceiver(r: ReceiverRow): StoredReceiver {
  return {
    id: Number(r.id),
    url: r.url,
    events: JSON.parse(r.events) as WebhookEvent[],
    allowPrivate: r.allow_private === 1,
    secretSealed: r.secret_sealed,
    createdAt: r.created_at,
  };
}

/** Adds a receiver; null when the project already has one with this URL. */
export async function insertReceiver(
  sql: Sql,
  project: string,
  r: Omit<StoredReceiver, 'id' | 'createdAt'>,
): Promise<StoredReceiver | null> {
  const row = await sql.get<ReceiverRow>(
    `INSERT INTO webhook_receivers (project, url, events, allow_private, secret_sealed, created_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project, url) DO NOTHING RETURNING *`,
    [project, r.url, JSON.stringify(r.events), r.allowPrivate ? 1 : 0, r.secretSealed, new Date().toISOString()],
  );
  return row ? toReceiver(row) : null;
}

/** The project's receivers, oldest first. */
export async function listReceivers(sql: Sql, project: string): Promise<StoredReceiver[]> {
  const rows = await sql.all<ReceiverRow>('SELECT * FROM webhook_receivers WHERE project = ? ORDER BY id', [project]);
  return rows.map(toReceiver);
}

/** Removes receiver `id` of the project; whether there was one. */
export async function deleteReceiver(sql: Sql, project: string, id: number): Promise<boolean> {
  return (await sql.run('DELETE FROM webhook_receivers WHERE project = ? AND id = ?', [project, id])).changes > 0;
}
