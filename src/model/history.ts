// The vocabulary of problem history: the `since` time of the report, and a crawl's changes.
import type { LinkReason } from './link-reasons.js';
import type { ReportLink } from './types.js';

/** The rule a `since` value must follow, as every surface states it. */
export const SINCE_RULE =
  'must be an ISO 8601 time such as 2026-11-23T08:00:00Z (with Z or an offset; a date alone, 2026-11-23, means its midnight UTC)';

const SINCE_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

/** A `since` value → the same instant as toISOString writes it (how first-seen times are stored); null when invalid. */
export function normalizeSince(value: string): string | null {
  // An unencoded "+02:00" in a query string arrives as " 02:00".
  const v = value.trim().replace(/(\d) (\d{2}:?\d{2})$/, '$1+$2');
  if (!SINCE_RE.test(v)) return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

/** A problem in a crawl's changes: the REST link form with the page it is on and its reason. */
export interface ChangeLink extends ReportLink {
  page: string;
  reason: LinkReason;
  /** When the crawl that first found it ended. */
  firstSeen: string;
}

/** What a crawl changed since the previous completed full crawl before it. */
export interface CrawlChanges {
  /** finishedAt of the previous completed full crawl before this one; null when there was none. */
  since: string | null;
  /** Problems in the report after this crawl that were not in it after the `since` crawl. */
  new: ChangeLink[];
  /** Problems in the report after the `since` crawl that are not in it after this crawl. */
  fixed: ChangeLink[];
}
