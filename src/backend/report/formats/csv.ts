// One line per (page, link), RFC 4180: CRLF line ends, a header line, every text field quoted (quotes doubled), so
// a spreadsheet splitting on `;` (Excel in many locales) as well as on `,` keeps each field one cell. Link texts and
// URLs come from crawled pages, so a field a spreadsheet would read as a formula is neutralized (OWASP's CSV
// injection rule): a leading ' inside its quotes. The status and blocked columns are numbers and booleans, bare.
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
 * A text field, quoted. One starting with = + - @ tab or carriage return gets a leading ' inside its quotes, a
 * negative number too (`-1+cmd|…` is one as far as a test can tell, and none of our own columns is ever negative).
 */
export function csvField(v: string): string {
  return `"${/^[=+\-@\t\r]/.test(v) ? "'" : ''}${v.replace(/"/g, '""')}"`;
}

export function formatCsv(r: LinkReport): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const { reason, page, link: l } of reportRows(r)) {
    const fields = [
      csvField(reason.reason),
      csvField(page),
      csvField(l.url),
      String(Math.trunc(l.httpStatus)),
      csvField(l.message),
      csvField(l.redirectsTo ?? ''),
      csvField(l.element ?? ''),
      csvField(l.text ?? ''),
      l.blocked ? 'true' : '',
      csvField(l.firstSeen ?? ''),
    ];
    lines.push(fields.join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
