// The search index a crawl builds after its link report is final: the pages it wrote keep their searchable columns
// in page_index_pending (the writers' deferIndex), so search answers from the previous index while the crawl runs;
// once the report is final they move into pages in large batches, and the index follows through the schema's
// triggers. What a process that died in between left is finished the same way by the next one that opens the store.
import type { Sql } from './sql.js';

/** A page's searchable columns: what the index is made of, and what waits aside while a crawl runs. */
export const SEARCHABLE_COLUMNS = [
  'indexed',
  'show_in_search',
  'title',
  'language',
  'tags',
  'superwords',
  'content',
  'path_words',
] as const;

/** Pages moved into the index per transaction: large enough to be cheap, short enough not to hold others back. */
export const INDEX_CHUNK = 500;

/** The first and last page ids of the next chunk (null: nothing is pending). */
export const NEXT_PENDING_CHUNK = `SELECT MIN(page_id) AS first, MAX(page_id) AS last FROM (SELECT page_id FROM page_index_pending ORDER BY page_id LIMIT ?) c`;
/**
 * The chunk's searchable columns into pages (the triggers index them), then out of page_index_pending. The range on
 * pages.id keeps the update to the chunk's rows: without it SQLite walked every page for every chunk.
 */
export const APPLY_PENDING = `UPDATE pages SET ${SEARCHABLE_COLUMNS.map((c) =>
  c === 'indexed' || c === 'show_in_search'
    ? `${c} = q.${c}`
    : `${c} = CASE WHEN q.fresh = 1 THEN pages.${c} ELSE q.${c} END`,
).join(', ')}
  FROM page_index_pending q WHERE q.page_id = pages.id AND pages.id BETWEEN ? AND ?`;
export const DROP_PENDING = 'DELETE FROM page_index_pending WHERE page_id <= ?';
/** Crawls whose report was final when their index was left unfinished (the process died): finished now. */
export const MARK_LEFT_INDEXED =
  'UPDATE crawls SET indexed_at = ? WHERE report_ready_at IS NOT NULL AND indexed_at IS NULL';

/**
 * Moves every pending page into the index, a chunk per transaction; returns how many pages moved. afterChunk: run
 * after each chunk (a crawl's heartbeat: building a large site's index takes longer than the dead-owner limit).
 */
export async function finishPendingIndex(sql: Sql, afterChunk?: () => Promise<void>): Promise<number> {
  let moved = 0;
  for (;;) {
    const n = await sql.tx(async (t) => {
      const row = await t.get<{ first: number | null; last: number | null }>(NEXT_PENDING_CHUNK, [INDEX_CHUNK]);
      if (row?.first == null || row.last == null) return 0;
      const applied = await t.run(APPLY_PENDING, [row.first, row.last]);
      await t.run(DROP_PENDING, [row.last]);
      return Math.max(applied.changes, 1);
    });
    if (!n) return moved;
    moved += n;
    await afterChunk?.();
  }
}

/** At open, when no crawl of this database is running: what a dead process left pending goes into the index. */
export async function recoverPendingIndex(sql: Sql): Promise<number> {
  if (await sql.get(`SELECT 1 AS one FROM crawls WHERE status = 'running' LIMIT 1`)) return 0;
  const moved = await finishPendingIndex(sql);
  await sql.run(MARK_LEFT_INDEXED, [new Date().toISOString()]);
  return moved;
}
