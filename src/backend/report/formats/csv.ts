// One line per (page, link), RFC 4180: CRLF line ends, a header line, fields quoted when they hold a comma, a quote
// or a line break (quotes doubled). Link texts and URLs come from crawled pages, so a field a spreadsheet would
// read as a formula is neutralized (OWASP's CSV injection rule): a leading ' inside a quoted field.
import type { LinkReport } from '../../../model/types.js';
import { reportRows } from './shared.js';

export const CSV_COLUMNS = [
  'reason',
  'page',
  'link',
  'http_status',
  'message',
  'redirects_to',
  'element',
  'text',
  'blocked',
  'first_seen',
] as const;

/**
 * Every field starting with = + - @ tab or carriage return gets a leading ' and quotes, a negative number too
 * (`-1+cmd|…` is one as far as a test can tell, and none of our own columns is ever negative).
 */
export function csvField(v: string): string {
  if (/^[=+\-@\t\r]/.test(v)) return `"'${v.replace(/"/g, '""')}"`;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export function formatCsv(r: LinkReport): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const { reason, page, link: l } of reportRows(r)) {
    const fields = [
      reason.reason,
      page,
      l.url,
      String(l.httpStatus),
      l.message,
      l.redirectsTo ?? '',
      l.element ?? '',
      l.text ?? '',
      l.blocked === undefined ? '' : String(l.blocked),
      l.firstSeen ?? '',
    ];
    lines.push(fields.map(csvField).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
