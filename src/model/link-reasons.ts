// The one table of link reasons: the order is the report's section order (its rank), the REST section key, and
// whether a reason is a broken link. Every layer derives its lists from here; the store's report_reasons table
// holds the same ranks (checked by test/store).

export const LINK_REASONS = [
  { reason: 'not_found', section: 'notFound', broken: true },
  { reason: 'forbidden', section: 'forbidden', broken: true },
  { reason: 'server_error', section: 'serverError', broken: true },
  { reason: 'redirect', section: 'redirect', broken: false },
  { reason: 'unknown', section: 'unknown', broken: false },
] as const;

/** A reason the report lists. `ok` and `skipped` outcomes never reach it. */
export type LinkReason = (typeof LINK_REASONS)[number]['reason'];
export type LinkOutcomeReason = LinkReason | 'ok' | 'skipped';
export type SectionKey = (typeof LINK_REASONS)[number]['section'];

/** The report's reasons in section order: a reason's index is its rank. */
export const REPORT_REASONS: readonly LinkReason[] = LINK_REASONS.map((r) => r.reason);
/** REST section key of each reason, in section order. */
export const SECTION_KEYS: readonly SectionKey[] = LINK_REASONS.map((r) => r.section);

/** Whether an outcome is a broken link (it counts as an error of the crawl). */
export function isBroken(reason: LinkOutcomeReason): boolean {
  return LINK_REASONS.some((r) => r.reason === reason && r.broken);
}
