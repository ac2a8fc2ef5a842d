// What the report formats share: the report as flat (reason, page, link) rows, the reasons' titles, one sentence
// per problem, and markup escaping. Everything from the report (URLs, messages, link texts) is untrusted.
import { escapeHtml } from '../../../lib/escape-html.js';
import { LINK_REASONS, type LinkReason, type SectionKey } from '../../../model/link-reasons.js';
import type { LinkReport, ReportLink, ReportTarget } from '../../../model/types.js';
import { trackingNote as targetTrackingNote } from '../../../report-view/render.js';
import { REASON_TEXT } from '../../../report-view/view-data.js';

export interface FormatOptions {
  /** svc's version, named by the machine-readable formats. */
  toolVersion?: string;
  /** The reasons that fail CI (`--fail-on`); JUnit marks these as failures. Default: the broken reasons. */
  failOn?: readonly LinkReason[];
}

export interface ReasonInfo {
  reason: LinkReason;
  section: SectionKey;
  broken: boolean;
  title: string;
  description: string;
}

/** The report's reasons in section order, with their titles. */
export const REASONS: readonly ReasonInfo[] = LINK_REASONS.map((r) => ({
  ...r,
  ...REASON_TEXT.find((t) => t.reason === r.reason)!,
}));

export function reasonInfo(reason: LinkReason): ReasonInfo {
  return REASONS.find((r) => r.reason === reason)!;
}

/** One (page, link) pair of the report. */
export interface Row {
  reason: ReasonInfo;
  page: string;
  link: ReportLink;
}

/** Every (page, link) pair the report holds, in report order (reason, page, link). */
export function reportRows(r: LinkReport): Row[] {
  return REASONS.flatMap((reason) =>
    r[reason.section].pages.flatMap((p) => p.links.map((link) => ({ reason, page: p.url, link }))),
  );
}

/** Per reason: the complete count, and how many links the report lists (fewer when truncated). */
export function reasonCounts(r: LinkReport): { reason: ReasonInfo; count: number; shown: number }[] {
  return REASONS.map((reason) => {
    const s = r[reason.section];
    return { reason, count: s.count, shown: s.pages.reduce((n, p) => n + p.links.length, 0) };
  });
}

export function totalCount(r: LinkReport): number {
  return REASONS.reduce((n, reason) => n + r[reason.section].count, 0);
}

/** The reasons a JUnit consumer sees as failures. */
export function failingSet(o: FormatOptions): ReadonlySet<LinkReason> {
  return new Set(o.failOn ?? REASONS.filter((r) => r.broken).map((r) => r.reason));
}

/** Why a near-empty report may not mean a healthy site: null when the target checks every link. */
export function trackingNote(t: ReportTarget): string | null {
  return targetTrackingNote(t.host, t.linkTracking);
}

/** One line about a problem link: "Not found: URL (HTTP 404) — message". */
export function describeLink(reason: ReasonInfo, l: ReportLink): string {
  let s = `${reason.title}: ${l.url}`;
  if (l.httpStatus) s += ` (HTTP ${l.httpStatus})`;
  if (l.redirectsTo) s += ` → ${l.redirectsTo}`;
  if (l.message) s += ` — ${l.message}`;
  return s;
}

/** Where on the page the link is: `<a> "Read more"`, or '' when the report does not say. */
export function describeSource(l: ReportLink): string {
  const parts: string[] = [];
  if (l.element) parts.push(`<${l.element}>`);
  if (l.text) parts.push(`"${l.text}"`);
  return parts.join(' ');
}

// XML 1.0 forbids these characters even as references; they can only be dropped.
// eslint-disable-next-line no-control-regex
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text for XML or HTML, in element content or a quoted attribute. */
export function escapeMarkup(s: string): string {
  return escapeHtml(s.replace(NOT_XML, ''));
}
