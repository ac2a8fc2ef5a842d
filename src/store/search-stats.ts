// Search analytics in the database (table search_queries, migration 65 of both dialects): the recorded searches
// written in batches, read back as the top queries, the queries that found nothing and the searches per day, and
// deleted past their retention. Nothing here knows who searched: no such column exists.
import type { SearchDay, SearchQueryCount, SearchStats } from '../model/search-stats.js';
import type { Sql } from './sql.js';

/** One search as recorded. */
export interface SearchRecord {
  terms: string;
  hits: number;
  /** ISO 8601. */
  at: string;
}

/** Rows of one INSERT: a batch of a busy minute in one statement, under both dialects' bound-parameter limits. */
const ROWS_PER_INSERT = 200;

/** Writes a batch of recorded searches in one transaction. */
export async function recordSearches(sql: Sql, project: string, records: readonly SearchRecord[]): Promise<void> {
  if (!records.length) return;
  await sql.tx(async (t) => {
    for (let i = 0; i < records.length; i += ROWS_PER_INSERT) {
      const chunk = records.slice(i, i + ROWS_PER_INSERT);
      const values = chunk.map(() => '(?, ?, ?, ?)').join(', ');
      await t.run(
        `INSERT INTO search_queries (project, terms, hits, searched_at) VALUES ${values}`,
        chunk.flatMap((r) => [project, r.terms, r.hits, r.at]),
      );
    }
  });
}

/** Deletes the searches recorded before `before` (ISO 8601); how many. */
export async function pruneSearchStats(sql: Sql, project: string, before: string): Promise<number> {
  return (await sql.run('DELETE FROM search_queries WHERE project = ? AND searched_at < ?', [project, before])).changes;
}

interface ListRow {
  terms: string;
  searches: number;
  lastSearched: string;
  lastHits: number;
}

/**
 * The terms of the searches since `since` (those with `hits = 0` only, with `noResults`), most searched first, then by
 * terms; each with what its latest search (any) found.
 */
async function queryList(
  sql: Sql,
  project: string,
  since: string,
  limit: number,
  noResults: boolean,
): Promise<SearchQueryCount[]> {
  // The latest search of each listed term is read for the page of terms only, not for every term of the period.
  const rows = await sql.all<ListRow>(
    `SELECT g.terms, g.searches, g."lastSearched",
       (SELECT s.hits FROM search_queries s WHERE s.project = @project AND s.terms = g.terms
        ORDER BY s.searched_at DESC, s.id DESC LIMIT 1) AS "lastHits"
     FROM (SELECT terms, COUNT(*) AS searches, MAX(searched_at) AS "lastSearched" FROM search_queries
           WHERE project = @project AND searched_at >= @since${noResults ? ' AND hits = 0' : ''}
           GROUP BY terms ORDER BY COUNT(*) DESC, terms LIMIT @limit) g
     ORDER BY g.searches DESC, g.terms`,
    { project, since, limit },
  );
  return rows.map((r) => ({
    terms: r.terms,
    searches: Number(r.searches),
    last_hits: Number(r.lastHits),
    last_searched: r.lastSearched,
  }));
}

/**
 * What was searched since `since` (ISO 8601): the totals, the top `limit` queries, the top `limit` queries with no
 * results, and the counts of each UTC day that had a search (the caller fills the others), all from one snapshot.
 */
export async function readSearchStats(
  sql: Sql,
  project: string,
  since: string,
  limit: number,
): Promise<Omit<SearchStats, 'since' | 'retention_days' | 'limit'>> {
  return sql.snapshot(async (s) => {
    const totals = await s.get<{ searches: number; noResultSearches: number | null; queries: number }>(
      `SELECT COUNT(*) AS searches, SUM(CASE WHEN hits = 0 THEN 1 ELSE 0 END) AS "noResultSearches",
         COUNT(DISTINCT terms) AS queries
       FROM search_queries WHERE project = ? AND searched_at >= ?`,
      [project, since],
    );
    const noResult = await s.get<{ queries: number }>(
      'SELECT COUNT(DISTINCT terms) AS queries FROM search_queries WHERE project = ? AND searched_at >= ? AND hits = 0',
      [project, since],
    );
    const days = await s.all<{ day: string; searches: number; noResults: number }>(
      `SELECT SUBSTR(searched_at, 1, 10) AS day, COUNT(*) AS searches,
         SUM(CASE WHEN hits = 0 THEN 1 ELSE 0 END) AS "noResults"
       FROM search_queries WHERE project = ? AND searched_at >= ?
       GROUP BY SUBSTR(searched_at, 1, 10) ORDER BY day`,
      [project, since],
    );
    return {
      totals: {
        searches: Number(totals?.searches ?? 0),
        no_result_searches: Number(totals?.noResultSearches ?? 0),
        queries: Number(totals?.queries ?? 0),
        no_result_queries: Number(noResult?.queries ?? 0),
      },
      top_queries: await queryList(s, project, since, limit, false),
      no_result_queries: await queryList(s, project, since, limit, true),
      days: days.map((d): SearchDay => ({ day: d.day, searches: Number(d.searches), no_results: Number(d.noResults) })),
    };
  });
}
