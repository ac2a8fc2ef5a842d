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
  /** How many terms the whole list has (the same on every row). */
  listed: number;
}

/**
 * The terms of the searches since `since` (with `noResults`, of those that found nothing only), most searched first,
 * then by terms, at most `limit`; each with what its latest search (any) found; and how many terms there are in all.
 * One pass over the terms index (it holds every column read), whose groups come in terms order.
 */
async function queryList(
  sql: Sql,
  project: string,
  since: string,
  limit: number,
  noResults: boolean,
): Promise<{ list: SearchQueryCount[]; count: number }> {
  const rows = await sql.all<ListRow>(
    `SELECT terms, COUNT(*) AS searches, MAX(searched_at) AS "lastSearched", COUNT(*) OVER () AS listed
     FROM search_queries
     WHERE project = @project AND searched_at >= @since${noResults ? ' AND hits = 0' : ''}
     GROUP BY terms ORDER BY COUNT(*) DESC, terms LIMIT @limit`,
    { project, since, limit },
  );
  const list: SearchQueryCount[] = [];
  // The latest search of each listed term: one seek down the terms index each.
  for (const r of rows) {
    const last = await sql.get<{ hits: number }>(
      'SELECT hits FROM search_queries WHERE project = ? AND terms = ? ORDER BY searched_at DESC LIMIT 1',
      [project, r.terms],
    );
    list.push({
      terms: r.terms,
      searches: Number(r.searches),
      last_hits: Number(last?.hits ?? 0),
      last_searched: r.lastSearched,
    });
  }
  return { list, count: Number(rows[0]?.listed ?? 0) };
}

/**
 * What was searched since `since` (ISO 8601): the totals, the top `limit` queries, the top `limit` queries with no
 * results, and the counts of each UTC day that had a search (the caller fills the others), all from one snapshot:
 * three passes over an index each, the table never read.
 */
export async function readSearchStats(
  sql: Sql,
  project: string,
  since: string,
  limit: number,
): Promise<Omit<SearchStats, 'since' | 'retention_days' | 'limit'>> {
  return sql.snapshot(async (s) => {
    const days = (
      await s.all<{ day: string; searches: number; noResults: number }>(
        `SELECT SUBSTR(searched_at, 1, 10) AS day, COUNT(*) AS searches,
           SUM(CASE WHEN hits = 0 THEN 1 ELSE 0 END) AS "noResults"
         FROM search_queries WHERE project = ? AND searched_at >= ?
         GROUP BY SUBSTR(searched_at, 1, 10) ORDER BY day`,
        [project, since],
      )
    ).map((d): SearchDay => ({ day: d.day, searches: Number(d.searches), no_results: Number(d.noResults) }));
    const top = await queryList(s, project, since, limit, false);
    const none = await queryList(s, project, since, limit, true);
    return {
      totals: {
        searches: days.reduce((n, d) => n + d.searches, 0),
        no_result_searches: days.reduce((n, d) => n + d.no_results, 0),
        queries: top.count,
        no_result_queries: none.count,
      },
      top_queries: top.list,
      no_result_queries: none.list,
      days,
    };
  });
}
