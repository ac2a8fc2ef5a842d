// Changes: what a crawl broke and fixed since the full crawl before it (the backend's crawl changes, as
// `svc changes` and /v1 show them), and the problem links per reason across the completed full crawls, as a chart
// and as a table. The trend is the changes added up crawl after crawl: the first crawl's problems are all new.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import type { ChangeLink } from '../../../model/history.js';
import { REPORT_REASONS, type LinkReason } from '../../../model/link-reasons.js';
import type { CrawlRecord } from '../../../model/types.js';
import { lineChart, sparkline } from '../chart.js';
import { projectPath, type PageContent } from '../layout.js';
import { refusalMessage, table, when, type PageCtx } from './page.js';

/** The most completed full crawls a trend covers (each is one read of its changes). */
export const TREND_CRAWLS = 30;

const COLOURS: Record<LinkReason, string> = {
  not_found: '#b32d2e',
  forbidden: '#996800',
  server_error: '#8c1bab',
  redirect: '#2271b1',
  unknown: '#50575e',
} as Record<LinkReason, string>;

export interface TrendPoint {
  crawl: CrawlRecord;
  counts: Record<LinkReason, number>;
}

/** The completed full crawls, oldest first (the last TREND_CRAWLS of them). */
async function fullCrawls(ctx: PageCtx): Promise<CrawlRecord[]> {
  const crawls = await ctx.project.backend.listCrawls({ limit: 200, offset: 0 });
  return crawls
    .filter((c) => c.mode === 'full' && c.status === 'completed')
    .slice(0, TREND_CRAWLS)
    .reverse();
}

/**
 * Problem links per reason after each completed full crawl, oldest first: the changes of each crawl added to the
 * counts after the one before it. When older crawls are left out, the first one shown starts from its report
 * as it stood then (its changes' `since` is not null): the count of its new problems is all that is known, so the
 * trend starts at the first crawl whose `since` is null or at the first shown.
 */
export async function problemTrend(ctx: PageCtx): Promise<TrendPoint[]> {
  const points: TrendPoint[] = [];
  let counts = Object.fromEntries(REPORT_REASONS.map((r) => [r, 0])) as Record<LinkReason, number>;
  for (const crawl of await fullCrawls(ctx)) {
    const changes = await ctx.project.backend.crawlChanges(crawl.id);
    counts = { ...counts };
    for (const l of changes.new) counts[l.reason] += 1;
    for (const l of changes.fixed) counts[l.reason] = Math.max(0, counts[l.reason] - 1);
    points.push({ crawl, counts });
  }
  return points;
}

const total = (c: Record<LinkReason, number>) => REPORT_REASONS.reduce((n, r) => n + c[r], 0);
const links = (n: number) => `${n} problem link${n === 1 ? '' : 's'}`;

/** The chart of the trend with its table, or a sentence when there are fewer than two crawls. */
export function trendSection(points: readonly TrendPoint[]): string {
  const shown = REPORT_REASONS.filter((r) => points.some((p) => p.counts[r] > 0));
  const reasons = shown.length ? shown : (['not_found'] as LinkReason[]);
  const chart = lineChart({
    id: 'trend-chart',
    title: 'Problem links per reason, by crawl',
    desc: `Problem links after each of the last ${points.length} completed full crawls: ${reasons
      .map((r) => `${r} ${points.map((p) => p.counts[r]).join(', ')}`)
      .join('; ')}.`,
    xLabel: 'Completed full crawl (id)',
    yLabel: 'Problem links',
    points: points.map((p) => String(p.crawl.id)),
    series: reasons.map((r) => ({ name: r, colour: COLOURS[r], values: points.map((p) => p.counts[r]) })),
  });
  if (!chart)
    return `<p id="trend-none">${
      points.length === 0
        ? 'No completed full crawl yet: the chart of problem links over time starts after two.'
        : `One completed full crawl so far (crawl ${points[0]!.crawl.id}, ${links(total(points[0]!.counts))}): the chart starts after the second.`
    }</p>`;
  const rows = points.map((p) => [
    String(p.crawl.id),
    when(p.crawl.finishedAt),
    ...reasons.map((r) => String(p.counts[r])),
    String(total(p.counts)),
  ]);
  return `<figure class="chart">${chart}<figcaption>Problem links per reason after each completed full crawl. The same figures as a table:</figcaption></figure>
${table('trend', ['Crawl', 'Finished', ...reasons, 'All'], rows, '')}`;
}

/** The overview's line: total problem links after each crawl, with the figures in words. */
export function trendSparkline(ctx: PageCtx, points: readonly TrendPoint[]): string {
  const totals = points.map((p) => total(p.counts));
  const link = `<a href="${projectPath(ctx.project.token, 'changes')}">Changes</a>`;
  const line = sparkline(
    'trend-sparkline',
    `Problem links after the last ${totals.length} full crawls: ${totals.join(', ')}`,
    totals,
  );
  if (!line)
    return `<p id="trend-summary">${totals.length === 0 ? 'No completed full crawl yet.' : `${links(totals[0]!)} after the only completed full crawl.`} ${link}</p>`;
  return `<p id="trend-summary">${line} ${links(totals.at(-1)!)} after the last full crawl (${totals.at(-2)} before; ${totals.join(' → ')}). ${link}</p>`;
}

function changeRows(links: readonly ChangeLink[]): string[][] {
  return links.map((l) => [
    e(l.reason),
    `<span class="url">${e(l.page)}</span>`,
    `<span class="url">${e(l.url)}</span>`,
    l.httpStatus ? String(l.httpStatus) : '–',
  ]);
}

export async function changesPage(ctx: PageCtx): Promise<{ status: number; page: PageContent }> {
  const points = await problemTrend(ctx);
  const ended = (await ctx.project.backend.listCrawls({ limit: 20, offset: 0 })).filter(
    (c) => c.status !== 'running' && c.status !== 'queued',
  );
  const asked = Number(ctx.url.searchParams.get('crawl') ?? '');
  const id = Number.isInteger(asked) && asked > 0 ? asked : (points.at(-1)?.crawl.id ?? ended[0]?.id ?? null);
  let status = 200;
  let error: string | null = null;
  let changes = '';
  if (id !== null) {
    try {
      const c = await ctx.project.backend.crawlChanges(id);
      const head = ['Reason', 'Page', 'Link', 'HTTP status'];
      changes = `<p id="changes-since">Crawl ${id} compared with ${c.since ? `the full crawl that ended ${when(c.since)}` : 'nothing before it (the first full crawl: every problem is new)'}.</p>
<h2>New problem links (${c.new.length})</h2>${table('changes-new', head, changeRows(c.new), 'None: nothing broke.')}
<h2>Fixed problem links (${c.fixed.length})</h2>${table('changes-fixed', head, changeRows(c.fixed), 'None fixed.')}`;
    } catch (err) {
      const r = refusalMessage(err);
      status = r.status;
      error = r.message;
    }
  }
  const options = ended
    .map(
      (c) =>
        `<option value="${c.id}"${c.id === id ? ' selected' : ''}>Crawl ${c.id} (${e(c.mode)}, ${e(c.status)})</option>`,
    )
    .join('');
  return {
    status,
    page: {
      title: 'Changes',
      error,
      body: `${
        ended.length
          ? `<form method="get" action="${projectPath(ctx.project.token, 'changes')}" class="row"><div class="field"><label for="changes-crawl">Crawl</label><select id="changes-crawl" name="crawl">${options}</select></div><button type="submit" id="changes-show">Show</button></form>`
          : '<p id="changes-none">No crawl has ended yet: start one on the Crawls page.</p>'
      }${changes}
<h2>Problem links over time</h2>${trendSection(points)}`,
    },
  };
}
