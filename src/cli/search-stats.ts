// `svc search-stats [--since TIME] [--limit N] [--format text|json]`: search analytics of the project (embedded or
// remote): the most searched terms, the terms that found nothing, and searches per day.
import {
  SEARCH_STATS_LIMIT,
  statsSinceProblem,
  type SearchQueryCount,
  type SearchStats,
} from '../model/search-stats.js';
import { CliError, intOption, parse, PROJECT_OPTION, withApp } from './common.js';
import type { Terminal } from './terminal.js';

const FORMATS = ['text', 'json'] as const;

const USAGE = `usage: svc search-stats [--since TIME] [--limit N] [--format text|json] [--config F | --site URL] [--project TOKEN]
  --since TIME   searches from this time on: an ISO 8601 date (2026-11-01, midnight UTC) or date-time with Z or an
                 offset; not in the future (default: the retention window, search_stats.retention_days, 90 days)
  --limit N      top queries and no-result queries to show, ${SEARCH_STATS_LIMIT.min} to ${SEARCH_STATS_LIMIT.max} each (default ${SEARCH_STATS_LIMIT.default})
  --format F     text (default) or json (the REST form of GET /v1/projects/<token>/search-stats)

Each search answered (its first page of hits) is recorded with its normalized terms, its hit count and its time;
never who searched.

Exit status: 0 answered, 2 bad input or no target.
`;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function queryLine(q: SearchQueryCount, noResults: boolean): string {
  const last = noResults
    ? q.last_hits
      ? `finds ${plural(q.last_hits, 'page')} now`
      : 'still finds nothing'
    : `last found ${plural(q.last_hits, 'page')}`;
  return `  ${String(q.searches).padStart(6)}  ${q.terms}  (${last}; last searched ${q.last_searched})`;
}

/** The readable form: the totals, the two lists, and the days that had searches. */
export function formatSearchStats(s: SearchStats): string {
  const t = s.totals;
  const out = [
    s.retention_days === 0
      ? 'Search analytics are off (search_stats.retention_days is 0): no search is recorded.'
      : `Searches since ${s.since} (kept ${plural(s.retention_days, 'day')}): ${plural(t.searches, 'search', 'searches')}, ${t.no_result_searches} with no results; ${plural(t.queries, 'distinct query', 'distinct queries')}`,
  ];
  out.push('', `Top queries (${s.top_queries.length} of ${t.queries})`);
  if (!s.top_queries.length) out.push('  none');
  for (const q of s.top_queries) out.push(queryLine(q, false));
  out.push('', `Queries with no results (${s.no_result_queries.length} of ${t.no_result_queries})`);
  if (!s.no_result_queries.length) out.push('  none');
  for (const q of s.no_result_queries) out.push(queryLine(q, true));
  const days = s.days.filter((d) => d.searches);
  out.push('', 'Searches per day (UTC)');
  if (!days.length) out.push('  no search in this period');
  for (const d of days)
    out.push(`  ${d.day}  ${String(d.searches).padStart(6)} searches, ${d.no_results} with no results`);
  return `${out.join('\n')}\n`;
}

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values, positionals } = parse(argv, {
    since: { type: 'string' },
    limit: { type: 'string' },
    format: { type: 'string' },
    ...PROJECT_OPTION,
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length) throw new CliError(`search-stats: unexpected argument "${positionals[0]}"\n${USAGE}`);
  const format = values.format ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format))
    throw new CliError(`--format: unknown format "${format}" (allowed: ${FORMATS.join(', ')})`);
  const since = values.since;
  const problem = since === undefined ? null : statsSinceProblem(since, Date.now());
  if (problem) throw new CliError(`--since: ${problem}`);
  const limit = intOption('limit', values.limit, SEARCH_STATS_LIMIT.min, SEARCH_STATS_LIMIT.max);
  const text = await withApp(
    values,
    io,
    async (app) => {
      const stats = await app.backend.searchStats({ since, limit });
      return format === 'json' ? `${JSON.stringify(stats)}\n` : formatSearchStats(stats);
    },
    { readOnlyOk: true, needsTarget: 'search-stats' },
  );
  io.stdout.write(text);
  return 0;
}
