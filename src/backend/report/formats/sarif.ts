// SARIF 2.1.0 (what code-scanning services read): one rule per reason, one result per (page, link), located at
// the page's URL. Broken reasons are errors, redirect and unknown warnings, a blocked answer a note.
import { createHash } from 'node:crypto';
import type { LinkReport } from '../../../model/types.js';
import {
  describeLink,
  describeSource,
  type FormatOptions,
  REASONS,
  reasonCounts,
  reportRows,
  type Row,
} from './shared.js';

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

type Level = 'error' | 'warning' | 'note';

function level(row: Row): Level {
  if (row.link.blocked) return 'note';
  return row.reason.broken ? 'error' : 'warning';
}

/**
 * A URI as RFC 3986 allows it: characters outside its set (spaces, `|`, non-ASCII, …) percent-encoded, a `%` that
 * starts no escape encoded too. URLs the crawler stores are already like this; report data is not trusted to be.
 */
export function rfc3986(uri: string): string {
  return uri.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/gu, (c) => {
    if (c === '%') return '%25';
    // A lone surrogate has no UTF-8 form: it becomes U+FFFD.
    return c.length === 1 && c >= '\uD800' && c <= '\uDFFF' ? '%EF%BF%BD' : encodeURIComponent(c);
  });
}

function pascal(reason: string): string {
  return reason.replace(/(^|_)([a-z])/g, (_, __, ch: string) => ch.toUpperCase());
}

export function formatSarif(r: LinkReport, o: FormatOptions = {}): string {
  const results = reportRows(r).map((row) => {
    const l = row.link;
    const source = describeSource(l);
    const properties: Record<string, unknown> = { link: l.url, httpStatus: l.httpStatus };
    if (l.redirectsTo) properties.redirectsTo = l.redirectsTo;
    if (l.element) properties.element = l.element;
    if (l.text) properties.text = l.text;
    if (l.blocked !== undefined) properties.blocked = l.blocked;
    if (l.firstSeen) properties.firstSeen = l.firstSeen;
    return {
      ruleId: row.reason.reason,
      ruleIndex: REASONS.indexOf(row.reason),
      level: level(row),
      message: { text: describeLink(row.reason, l) },
      locations: [
        {
          physicalLocation: { artifactLocation: { uri: rfc3986(row.page) } },
          ...(source ? { message: { text: `in ${source}` } } : {}),
        },
      ],
      // Keeps a result the same alert from one run to the next.
      partialFingerprints: {
        'svcLink/v1': createHash('sha256').update(`${row.reason.reason}\n${row.page}\n${l.url}`).digest('hex'),
      },
      properties,
    };
  });
  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'svc',
            ...(o.toolVersion ? { version: o.toolVersion, semanticVersion: o.toolVersion } : {}),
            rules: REASONS.map((reason) => ({
              id: reason.reason,
              name: pascal(reason.reason),
              shortDescription: { text: `${reason.title} link` },
              fullDescription: { text: reason.description },
              defaultConfiguration: { level: reason.broken ? 'error' : 'warning' },
              properties: { tags: ['links'] },
            })),
          },
        },
        results,
        properties: {
          lastFullCrawl: r.lastFullCrawl,
          truncated: r.truncated,
          counts: Object.fromEntries(reasonCounts(r).map((c) => [c.reason.reason, c.count])),
          targets: r.targets,
        },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
