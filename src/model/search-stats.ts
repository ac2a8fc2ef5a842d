// The vocabulary of search analytics (each search answered is recorded: its normalized terms, its hit count and
// when; never who searched): how long records are kept, what a reader asks for (`since`, `limit`) and the answer
// every surface (/v1, `svc search-stats`, the console) shows. The rules are here once; the store reads, the backend
// records.
import { BackendError } from './errors.js';
import { normalizeSince, SINCE_RULE } from './history.js';

/** How long search records are kept when the config does not say (days). */
export const SEARCH_STATS_RETENTION_DEFAULT = 90;
/** The longest `search_stats.retention_days` (ten years): a bound on the per-day list's length. */
export const SEARCH_STATS_RETENTION_MAX = 3650;
/** The lists of an answer (top queries, queries with no results): at most this many each, `limit`. */
export const SEARCH_STATS_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** One query of a list: its normalized terms, how many searches, and what its latest one found. */
export interface SearchQueryCount {
  /** As the search read them: folded words, "quoted phrases", identifiers joined (`pg_dump`). */
  terms: string;
  /** Searches of these terms in the period (in no_result_queries: those that found nothing). */
  searches: number;
  /** The hits of the latest search of these terms (any, with or without results). */
  last_hits: number;
  /** When these terms were last searched (ISO 8601). */
  last_searched: string;
}

/** One UTC day of the period. */
export interface SearchDay {
  /** YYYY-MM-DD (UTC). */
  day: string;
  searches: number;
  /** Searches that found no page. */
  no_results: number;
}

export interface SearchStats {
  /** The start of the period (ISO 8601): `since`, or the start of the retention window when not given or older. */
  since: string;
  /** How many days records are kept (search_stats.retention_days); 0: searches are not recorded. */
  retention_days: number;
  /** searches: searches recorded in the period; no_result_searches: of those, found nothing; queries and
   * no_result_queries: distinct normalized terms among them. */
  totals: { searches: number; no_result_searches: number; queries: number; no_result_queries: number };
  /** The most searched terms, most first (then by terms), at most `limit`. */
  top_queries: SearchQueryCount[];
  /** Terms whose searches found nothing, most such searches first, at most `limit`: the pages people miss. */
  no_result_queries: SearchQueryCount[];
  /** Every UTC day from since's to today's, oldest first; days with no search hold zeros. */
  days: SearchDay[];
  limit: number;
}

export interface SearchStatsQuery {
  /** ISO 8601 date or time (SINCE_RULE), not in the future. */
  since?: string;
  limit?: number;
}

/** The rule a search-stats `since` follows, as every surface states it. */
export const STATS_SINCE_RULE = `${SINCE_RULE}, not in the future`;

const DAY_MS = 86_400_000;

/** The start of the retention window at `now` (ms since the epoch): records before it are deleted. */
export function retentionStart(now: number, retentionDays: number): string {
  return new Date(now - retentionDays * DAY_MS).toISOString();
}

/**
 * The period a reader asked for: `since` normalized (invalid or in the future: BackendError invalid_input naming
 * it), no earlier than the retention window (nothing older is kept), the window's start when not given.
 */
export function statsPeriod(since: string | undefined, now: number, retentionDays: number): string {
  const start = retentionStart(now, retentionDays);
  if (since === undefined) return start;
  const problem = statsSinceProblem(since, now);
  if (problem) throw new BackendError('invalid_input', `since: ${problem}`);
  const normal = normalizeSince(since)!;
  // ISO 8601 times of one form compare as text.
  if (normal < start) return start;
  return normal;
}

/** What is wrong with a search-stats `since` at `now` (the rule it breaks), or null when it is fine. */
export function statsSinceProblem(since: string, now: number): string | null {
  const normal = normalizeSince(since);
  if (normal === null) return STATS_SINCE_RULE;
  if (Date.parse(normal) > now)
    return `must not be in the future (got ${since}; now is ${new Date(now).toISOString()})`;
  return null;
}

/** The list's `limit`, or invalid_input naming it. */
export function statsLimit(limit: number | undefined): number {
  if (limit === undefined) return SEARCH_STATS_LIMIT.default;
  if (!Number.isInteger(limit) || limit < SEARCH_STATS_LIMIT.min || limit > SEARCH_STATS_LIMIT.max)
    throw new BackendError(
      'invalid_input',
      `limit: must be a whole number from ${SEARCH_STATS_LIMIT.min} to ${SEARCH_STATS_LIMIT.max}`,
    );
  return limit;
}

/** Every UTC day from `since`'s to `now`'s, each with its counts from `counted` (zeros where it has none). */
export function everyDay(since: string, now: number, counted: readonly SearchDay[]): SearchDay[] {
  const byDay = new Map(counted.map((d) => [d.day, d]));
  const out: SearchDay[] = [];
  const last = new Date(now).toISOString().slice(0, 10);
  for (let t = Date.parse(`${since.slice(0, 10)}T00:00:00Z`); ; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    if (day > last) break;
    out.push(byDay.get(day) ?? { day, searches: 0, no_results: 0 });
  }
  return out;
}
