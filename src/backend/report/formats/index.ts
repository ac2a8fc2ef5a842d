// The link report's output formats: pure functions, report in, text out.
import type { LinkReport } from '../../../model/types.js';
import { formatCsv } from './csv.js';
import { formatHtml } from './html.js';
import { formatJson } from './json.js';
import { formatJunit } from './junit.js';
import { formatMarkdown } from './markdown.js';
import { formatSarif } from './sarif.js';
import type { FormatOptions } from './shared.js';
import { formatText } from './text.js';

export type { FormatOptions } from './shared.js';

const FORMATTERS = {
  text: formatText,
  json: formatJson,
  csv: formatCsv,
  markdown: formatMarkdown,
  junit: formatJunit,
  sarif: formatSarif,
  html: formatHtml,
} satisfies Record<string, (r: LinkReport, o: FormatOptions) => string>;

export type ReportFormat = keyof typeof FORMATTERS;
export const REPORT_FORMATS = Object.keys(FORMATTERS) as ReportFormat[];

export function isReportFormat(s: string): s is ReportFormat {
  return Object.hasOwn(FORMATTERS, s);
}

export function formatLinkReport(format: ReportFormat, r: LinkReport, o: FormatOptions = {}): string {
  return FORMATTERS[format](r, o);
}
