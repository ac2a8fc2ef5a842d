// Link report: the report view `svc report --format html` writes and the MCP App renders (one implementation,
// through formats/html's entry), shown full width in the console page (the script sizes its frame to the report, so
// the page scrolls, not a box in it) and served on its own for a tab of its own; a filter (target, reason, since)
// that the view and the exports share, and an export in each of the CLI's report formats.
import {
  formatLinkReport,
  isReportFormat,
  REPORT_FORMATS,
  type ReportFormat,
} from '../../../backend/report/formats/index.js';
import { escapeHtml as e } from '../../../lib/escape-html.js';
import { normalizeSince, SINCE_RULE } from '../../../model/history.js';
import { REPORT_REASONS, type LinkReason } from '../../../model/link-reasons.js';
import { REPORT_LIMIT } from '../../../model/limits.js';
import type { LinkReportQuery } from '../../../model/types.js';
import { projectPath, type PageContent } from '../layout.js';
import { refusalMessage, type PageCtx } from './page.js';

/** How each format is named on its button, typed and saved. */
const EXPORTS: Record<ReportFormat, { label: string; type: string; ext: string }> = {
  csv: { label: 'CSV', type: 'text/csv; charset=utf-8', ext: 'csv' },
  markdown: { label: 'Markdown', type: 'text/markdown; charset=utf-8', ext: 'md' },
  sarif: { label: 'SARIF', type: 'application/sarif+json', ext: 'sarif' },
  junit: { label: 'JUnit', type: 'application/xml; charset=utf-8', ext: 'xml' },
  json: { label: 'JSON', type: 'application/json', ext: 'json' },
  html: { label: 'HTML', type: 'text/html; charset=utf-8', ext: 'html' },
  text: { label: 'Text', type: 'text/plain; charset=utf-8', ext: 'txt' },
};

/** The filter of the report page, read from its query; `problem` names a field that is wrong. */
function filterOf(ctx: PageCtx): { query: LinkReportQuery; problem: string | null; params: URLSearchParams } {
  const url = ctx.url.searchParams;
  const params = new URLSearchParams();
  const query: LinkReportQuery = { limit: REPORT_LIMIT.default };
  let problem: string | null = null;
  const target = url.get('target') ?? '';
  if (target) {
    if (ctx.project.targets.some((t) => t.host === target)) query.target = target;
    else problem = `target: "${target}" is not a target of this project`;
    params.set('target', target);
  }
  const reason = url.get('reason') ?? '';
  if (reason) {
    if ((REPORT_REASONS as readonly string[]).includes(reason)) query.reasons = [reason as LinkReason];
    else problem = `reason: must be one of ${REPORT_REASONS.join(', ')}`;
    params.set('reason', reason);
  }
  const since = (url.get('since') ?? '').trim();
  if (since) {
    const normal = normalizeSince(since);
    if (normal) query.since = normal;
    else problem = `since: ${SINCE_RULE}`;
    params.set('since', since);
  }
  return { query, problem, params };
}

const withQuery = (path: string, params: URLSearchParams) => (params.size ? `${path}?${params}` : path);

export function reportPage(ctx: PageCtx): { status: number; page: PageContent } {
  const { params, problem } = filterOf(ctx);
  const token = ctx.project.token;
  const view = e(withQuery(projectPath(token, 'report/view'), params));
  const target = params.get('target') ?? '';
  const reason = params.get('reason') ?? '';
  const targets = ctx.project.targets
    .map((t) => `<option value="${e(t.host)}"${t.host === target ? ' selected' : ''}>${e(t.host)}</option>`)
    .join('');
  const reasons = REPORT_REASONS.map(
    (r) => `<option value="${r}"${r === reason ? ' selected' : ''}>${r}</option>`,
  ).join('');
  const exportButtons = REPORT_FORMATS.map(
    (f) => `<button type="submit" name="format" value="${f}" id="export-${f}">${EXPORTS[f].label}</button>`,
  ).join(' ');
  const hidden = [...params].map(([k, v]) => `<input type="hidden" name="${e(k)}" value="${e(v)}">`).join('');
  return {
    status: problem ? 400 : 200,
    page: {
      title: 'Link report',
      error: problem ? `The filter was not applied: ${problem}.` : null,
      body: `<form method="get" action="${projectPath(token, 'report')}" class="row" id="report-filter">
<div class="field"><label for="report-target">Target</label><select id="report-target" name="target"><option value="">All targets</option>${targets}</select></div>
<div class="field"><label for="report-reason">Reason</label><select id="report-reason" name="reason"><option value="">All reasons</option>${reasons}</select></div>
<div class="field"><label for="report-since">First seen after (ISO 8601)</label><input type="text" id="report-since" name="since" value="${e(params.get('since') ?? '')}" placeholder="2026-11-23T08:00:00Z"></div>
<button type="submit" id="report-apply">Apply</button></form>
<form method="get" action="${projectPath(token, 'report/export')}" id="report-export" class="row">${problem ? '' : hidden}
<span>Export${params.size && !problem ? ' (this filter)' : ''}:</span> ${exportButtons}</form>
<p><a href="${view}" target="_blank" rel="noopener" id="report-open">Open the report on its own</a></p>
${problem ? '' : `<iframe class="report" id="report-frame" title="Link report" src="${view}"></iframe>`}`,
    },
  };
}

/** The report document itself, from stored data only, with the page's filter. */
export async function reportDocument(ctx: PageCtx, toolVersion: string): Promise<string> {
  const { query, problem } = filterOf(ctx);
  const report = await ctx.project.backend.linkReport(problem ? { limit: REPORT_LIMIT.default } : query);
  return formatLinkReport('html', report, { toolVersion });
}

/** An export of the report in one format, or why there is none (a page with its status: never an empty file). */
export async function reportExport(
  ctx: PageCtx,
  toolVersion: string,
): Promise<{ file: { name: string; type: string; body: string } } | { status: number; page: PageContent }> {
  const format = ctx.url.searchParams.get('format') ?? '';
  const refused = (status: number, error: string) => {
    const shown = reportPage(ctx);
    return { status, page: { ...shown.page, error } };
  };
  if (!isReportFormat(format))
    return refused(400, `format: must be one of ${REPORT_FORMATS.join(', ')}. Nothing was exported.`);
  const { query, problem } = filterOf(ctx);
  if (problem) return refused(400, `The filter was not applied: ${problem}. Nothing was exported.`);
  const [crawl] = await ctx.project.backend.listCrawls({ limit: 1, offset: 0 });
  if (!crawl)
    return refused(
      409,
      'There is no crawl yet, so there is no report to export. Start one on the Crawls page; nothing was exported.',
    );
  try {
    const report = await ctx.project.backend.linkReport(query);
    const body = formatLinkReport(format, report, { toolVersion });
    const name = `link-report-${ctx.project.token.replace(/[^A-Za-z0-9_-]+/g, '-')}.${EXPORTS[format].ext}`;
    return { file: { name, type: EXPORTS[format].type, body } };
  } catch (err) {
    return refused(refusalMessage(err).status, `Nothing was exported: ${refusalMessage(err).message}`);
  }
}
