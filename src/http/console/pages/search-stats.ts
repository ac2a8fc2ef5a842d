// Search analytics: what people searched the site for since a day (the backend's search stats, as `svc
// search-stats` and /v1 show them): the searches per day as a chart with its table, the most searched terms, and
// the terms that found nothing — the owner's list of pages people look for and the site lacks.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import type { SearchQueryCount, SearchStats } from '../../../model/search-stats.js';
import { lineChart } from '../chart.js';
import { projectPath, type PageContent } from '../layout.js';
import { refusalMessage, table, when, type PageCtx } from './page.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The searches per day: a chart when the period has two days or more with a search in it, else a sentence. */
export function daysSection(s: SearchStats): string {
  const busy = s.days.filter((d) => d.searches > 0);
  if (!busy.length)
    return `<p id="stats-days-none">No search was recorded in this period${s.retention_days === 0 ? ': search analytics are off (search_stats.retention_days is 0)' : ''}.</p>`;
  const chart =
    busy.length > 1
      ? lineChart({
          id: 'stats-chart',
          title: 'Searches per day',
          desc: `Searches per UTC day from ${s.days[0]!.day} to ${s.days.at(-1)!.day}: ${busy
            .map((d) => `${d.day} ${d.searches} (${d.no_results} with no results)`)
            .join('; ')}; no search on the other days.`,
          xLabel: 'Day (UTC)',
          yLabel: 'Searches',
          points: s.days.map((d) => d.day.slice(5)),
          series: [
            { name: 'searches', colour: '#2271b1', values: s.days.map((d) => d.searches) },
            { name: 'with no results', colour: '#b32d2e', values: s.days.map((d) => d.no_results) },
          ],
        })
      : null;
  const rows = busy.map((d) => [
    `<time datetime="${e(d.day)}">${e(d.day)}</time>`,
    String(d.searches),
    String(d.no_results),
  ]);
  const figure = chart
    ? `<figure class="chart">${chart}<figcaption>Searches per day; the days that had any, as a table:</figcaption></figure>`
    : `<p id="stats-days-one">Searches on one day only (${e(busy[0]!.day)}): the chart starts with the second.</p>`;
  return `${figure}
${table('stats-days', ['Day (UTC)', 'Searches', 'With no results'], rows, '')}`;
}

function queryRows(list: readonly SearchQueryCount[], noResults: boolean): string[][] {
  return list.map((q) => [
    `<span class="terms">${e(q.terms)}</span>`,
    String(q.searches),
    noResults ? (q.last_hits ? `finds ${plural(q.last_hits, 'page')} now` : 'nothing yet') : String(q.last_hits),
    when(q.last_searched),
  ]);
}

export async function searchStatsPage(ctx: PageCtx): Promise<{ status: number; page: PageContent }> {
  const asked = ctx.url.searchParams.get('since')?.trim() || undefined;
  let stats: SearchStats | null = null;
  let status = 200;
  let error: string | null = null;
  try {
    stats = await ctx.project.backend.searchStats({ since: asked });
  } catch (err) {
    const r = refusalMessage(err);
    status = r.status;
    error = r.message;
  }
  const form = `<form method="get" action="${projectPath(ctx.project.token, 'search-stats')}" class="row"><div class="field"><label for="stats-since">Since (a date, UTC)</label><input type="date" id="stats-since" name="since" value="${e(asked?.slice(0, 10) ?? '')}"></div><button type="submit" id="stats-show">Show</button></form>`;
  const about =
    '<p class="muted" id="stats-about">Each search answered (its first page of hits, from the site, the API, the abilities, MCP or this console) is recorded with its terms as the search read them, how many pages it found, and when. Never who searched: no address, user, key or session.</p>';
  if (!stats) return { status, page: { title: 'Search analytics', error, body: form + about } };
  const t = stats.totals;
  const summary = `<p id="stats-summary">Since ${when(stats.since)}: ${plural(t.searches, 'search', 'searches')}, ${t.no_result_searches} with no results; ${plural(t.queries, 'distinct query', 'distinct queries')}, ${t.no_result_queries} of them found nothing. Searches are kept ${plural(stats.retention_days, 'day')}.</p>`;
  const head = ['Terms', 'Searches', 'Pages found last time', 'Last searched'];
  const body = `${form}${summary}
<h2>Searches per day</h2>${daysSection(stats)}
<h2>Queries with no results (${stats.no_result_queries.length} of ${t.no_result_queries})</h2>
<p class="muted">What people looked for and did not find: pages the site may be missing, or words its pages do not use.</p>
${table('stats-no-results', ['Terms', 'Searches with no results', 'Now', 'Last searched'], queryRows(stats.no_result_queries, true), 'None: every search found something.')}
<h2>Top queries (${stats.top_queries.length} of ${t.queries})</h2>
${table('stats-top', head, queryRows(stats.top_queries, false), 'No search recorded in this period.')}
${about}`;
  return { status, page: { title: 'Search analytics', error, body } };
}
