// Integrity of the database file: SQLite's own checks, the full-text indexes and the report rows (both derived
// from the base tables, so they can be rebuilt), and an online backup.
import { rmSync } from 'node:fs';
import { FILL_SEARCH_INDEXES } from './migrations/023-search-url-path.js';
import { createPrivateFile } from '../private-files.js';
import type { Store } from './store.js';

/** Every FTS5 table of the schema (whatever migrations made them). */
function fullTextTables(store: Store): string[] {
  return (
    store.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'`)
      .all() as { name: string }[]
  ).map((r) => r.name);
}

const EXPECTED_REPORT_ROWS = `
  SELECT l.page_id, l.url, rr.rank, p.url AS page_url, p.host
  FROM links l JOIN link_outcomes o ON o.url = l.url JOIN report_reasons rr ON rr.reason = o.reason JOIN pages p ON p.id = l.page_id`;

/** SQLite's integrity check of every table and index: one line per problem (none when sound). */
export function tableProblems(store: Store): string[] {
  const rows = store.db.pragma('integrity_check') as { integrity_check: string }[];
  return rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
}

/** What can be rebuilt from the base tables and is not as it should be: one line per problem. */
export function derivedProblems(store: Store): string[] {
  const out: string[] = [];
  for (const t of fullTextTables(store)) {
    try {
      store.db.prepare(`INSERT INTO ${t}(${t}) VALUES ('integrity-check')`).run();
    } catch (err) {
      out.push(`search index ${t}: ${(err as Error).message}`);
      continue;
    }
    // The index holds exactly the searchable pages (hidden and noindex ones are stored but never indexed): its
    // per-document sizes table says which documents it has.
    if (!store.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(`${t}_docsize`)) continue;
    const { extra, missing } = store.db
      .prepare(
        `SELECT (SELECT count(*) FROM ${t}_docsize d WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = d.id AND p.indexed = 1 AND p.show_in_search = 1)) AS extra,
                (SELECT count(*) FROM pages p WHERE p.indexed = 1 AND p.show_in_search = 1 AND NOT EXISTS (SELECT 1 FROM ${t}_docsize d WHERE d.id = p.id)) AS missing`,
      )
      .get() as { extra: number; missing: number };
    if (extra || missing)
      out.push(`search index ${t}: ${missing} searchable page(s) missing, ${extra} entr(ies) with no searchable page`);
  }
  const missing = store.db
    .prepare(
      `SELECT count(*) AS n FROM (${EXPECTED_REPORT_ROWS} EXCEPT SELECT page_id, url, rank, page_url, host FROM report_links)`,
    )
    .get() as { n: number };
  const extra = store.db
    .prepare(
      `SELECT count(*) AS n FROM (SELECT page_id, url, rank, page_url, host FROM report_links EXCEPT ${EXPECTED_REPORT_ROWS})`,
    )
    .get() as { n: number };
  if (missing.n || extra.n) out.push(`report rows: ${missing.n} missing, ${extra.n} that should not be there`);
  const counts = store.db
    .prepare(
      `SELECT count(*) AS n FROM (SELECT host, rank, count(*) AS n FROM report_links GROUP BY host, rank EXCEPT SELECT host, rank, n FROM report_counts WHERE n > 0)`,
    )
    .get() as { n: number };
  if (counts.n) out.push(`report counts: ${counts.n} (host, section) counts differ from the report rows`);
  return out;
}

/**
 * Rebuilds what is derived from the base tables, in one transaction: the full-text indexes (from the searchable
 * pages) and the report rows with their counts. Returns what was rebuilt.
 */
export function rebuildDerived(store: Store): string[] {
  return store.tx(() => {
    const done: string[] = [];
    const tables = fullTextTables(store);
    for (const t of tables) store.db.prepare(`INSERT INTO ${t}(${t}) VALUES ('delete-all')`).run();
    store.db.prepare('DELETE FROM search_stemmers').run();
    // Only searchable pages go in (hidden and noindex pages never are), with their stems, as the triggers write them.
    store.db.exec(FILL_SEARCH_INDEXES);
    for (const t of tables) done.push(`search index ${t}`);
    store.db.prepare('DELETE FROM report_links').run();
    store.db.prepare('DELETE FROM report_counts').run();
    store.db
      .prepare(`INSERT OR IGNORE INTO report_links (page_id, url, rank, page_url, host) ${EXPECTED_REPORT_ROWS}`)
      .run();
    done.push('report rows');
    return done;
  });
}

/**
 * A consistent copy of the database at `file` (which must not exist), taken while others keep reading and writing
 * it; private (0600) from the start, as the database is.
 */
export async function backupTo(store: Store, file: string): Promise<void> {
  createPrivateFile(file);
  try {
    await store.db.backup(file);
  } catch (err) {
    rmSync(file, { force: true });
    throw err;
  }
}
