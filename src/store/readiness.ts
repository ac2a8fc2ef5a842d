// Whether a store can serve now (svc serve's /readyz): its database answers and its schema has every migration this
// svc knows. Asked on the raw connection with a short limit, never through the PostgreSQL store's wait for a server
// that stopped answering: a probe must say "not ready" at once, not wait a minute for the server to come back.
import type { PgStore } from './pg/store.js';
import type { ServiceStore } from './service-store.js';

/** How long a probe waits for the database before it counts as not answering. */
export const READINESS_TIMEOUT_MS = 3000;

/** `p`, or an error once `ms` have passed without its answer. */
export function withinLimit<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

/** Why the store cannot serve now (the database does not answer, or is behind this svc's schema), or null. */
export async function storeNotReady(store: ServiceStore, timeoutMs = READINESS_TIMEOUT_MS): Promise<string | null> {
  try {
    if (store.dialect === 'pg') {
      const { PG_SCHEMA_VERSION } = await import('./pg/migrations/index.js');
      const pg = (store as PgStore).pg;
      const row = await withinLimit(
        pg.get<{ v: number | null }>(
          `SELECT (SELECT MAX(version) FROM schema_migrations) AS v WHERE to_regclass('schema_migrations') IS NOT NULL`,
        ),
        timeoutMs,
      );
      const v = row?.v == null ? 0 : Number(row.v);
      return v >= PG_SCHEMA_VERSION
        ? null
        : `migrations not applied: schema at ${v}, this svc needs ${PG_SCHEMA_VERSION}`;
    }
    const { MIGRATIONS } = await import('./sqlite/migrations/index.js');
    const latest = MIGRATIONS.at(-1)!.version;
    const row = await store.sql.get<{ user_version: number }>('PRAGMA user_version');
    const v = Number(row?.user_version ?? 0);
    return v >= latest ? null : `migrations not applied: schema at ${v}, this svc needs ${latest}`;
  } catch (err) {
    return `the database does not answer: ${err instanceof Error ? err.message : String(err)}`;
  }
}
