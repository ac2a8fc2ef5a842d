// The counters of the request rate limit: a count of requests per client key and fixed window. PostgreSQL keeps them
// in a table, so every `svc serve` on one database counts together; one statement adds a request and reads the
// count. SQLite keeps them in this process's memory: one process serves a data directory, and a write per request
// would queue behind the crawl writer's commits on the file's one write lock.
import type { RateCounter } from '../model/rate-limits.js';
import type { Sql } from './sql.js';

/** Counts in memory: only the current window's counts are kept, so memory follows the clients of one window. */
export function memoryRateCounter(): RateCounter {
  let current = -1;
  let counts = new Map<string, number>();
  return {
    async hit(key, start) {
      if (start !== current) {
        // A request of an earlier window (one that waited) counts in the current one: windows only move forward.
        if (start < current) start = current;
        else {
          current = start;
          counts = new Map();
        }
      }
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return n;
    },
  };
}

// A row of an earlier window starts over at 1 in the new one; a late request of an earlier window never moves the row
// back (it counts in the newer window).
const HIT_SQL = `INSERT INTO rate_limit_windows (key, window_start, hits) VALUES (@key, @start, 1)
ON CONFLICT (key) DO UPDATE SET
  hits = CASE WHEN rate_limit_windows.window_start >= excluded.window_start THEN rate_limit_windows.hits + 1 ELSE 1 END,
  window_start = CASE WHEN rate_limit_windows.window_start >= excluded.window_start THEN rate_limit_windows.window_start ELSE excluded.window_start END
RETURNING hits`;

/**
 * Counts in the database's rate_limit_windows table (shared by every process on it). Rows of windows that have ended
 * are deleted once a window, by the first request of the next one this process sees.
 */
export function sqlRateCounter(sql: Sql): RateCounter {
  let pruned = -1;
  return {
    async hit(key, start) {
      const row = await sql.get<{ hits: number }>(HIT_SQL, { key, start });
      if (start > pruned) {
        pruned = start;
        await sql.run('DELETE FROM rate_limit_windows WHERE window_start < @start', { start });
      }
      return Number(row!.hits);
    },
  };
}
