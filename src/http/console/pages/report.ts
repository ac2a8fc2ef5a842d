// Link report: the report view `svc report --format html` writes and the MCP App renders (one implementation,
// through formats/html's entry), shown in a frame of the console page and served on its own for a tab of its own.
import { formatHtml } from '../../../backend/report/formats/html.js';
import { REPORT_LIMIT } from '../../../model/limits.js';
import { projectPath, type PageContent } from '../layout.js';
import type { PageCtx } from './page.js';

export function reportPage(ctx: PageCtx): PageContent {
  const view = projectPath(ctx.project.token, 'report/view');
  return {
    title: 'Link report',
    body: `<p><a href="${view}" target="_blank" rel="noopener" id="report-open">Open the report on its own</a></p>
<iframe class="report" id="report-frame" title="Link report" src="${view}"></iframe>`,
  };
}

/** The report document itself, from stored data only. */
export async function reportDocument(ctx: PageCtx, toolVersion: string): Promise<string> {
  const report = await ctx.project.backend.linkReport({ limit: REPORT_LIMIT.default });
  return formatHtml(report, { toolVersion });
}
