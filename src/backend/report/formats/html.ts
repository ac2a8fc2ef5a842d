// `svc report --format html`, and the entry the console's report page calls: one self-contained HTML file (counts
// per reason, the problems by link and by page, sorting and filtering) rendered by the report view, the same code
// the MCP App renders with.
import type { LinkReport } from '../../../model/types.js';
import { reportDocument } from '../../../report-view/document.js';
import { viewOfReport } from '../../../report-view/view-data.js';
import type { FormatOptions } from './shared.js';

export function formatHtml(r: LinkReport, o: FormatOptions = {}): string {
  return reportDocument(viewOfReport(r, o.toolVersion));
}
