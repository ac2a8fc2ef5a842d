// The one vocabulary of counts (docs/index.md's glossary), so every surface says the same thing of the same crawl:
// `pages` (pages the crawl stored), `links` (distinct link URLs checked), `problem links` (distinct link URLs whose
// outcome is one of the report's reasons) and `occurrences` (the page–link pairs of those), per reason and in total.
import { LINK_REASONS, type LinkReason } from './link-reasons.js';

/** Of one reason, or of all: distinct problem link URLs, and the (page, link) pairs they make. */
export interface ProblemTally {
  problemLinks: number;
  occurrences: number;
}

export interface ProblemCounts extends ProblemTally {
  /** Per reason, every reason present (0 when none). */
  reasons: Record<LinkReason, ProblemTally>;
}

/** What the store counts per report rank (a reason's index in LINK_REASONS). */
export interface RankTally extends ProblemTally {
  rank: number;
}

/**
 * The counts from the store's per-rank tallies: the one place they are summed. `ranks`, when given, keeps only
 * those reasons (the report's reasons filter); the others count 0.
 */
export function problemCounts(tallies: readonly RankTally[], ranks: readonly number[] | null = null): ProblemCounts {
  const reasons = Object.fromEntries(
    LINK_REASONS.map((r) => [r.reason, { problemLinks: 0, occurrences: 0 }]),
  ) as Record<LinkReason, ProblemTally>;
  for (const t of tallies) {
    const reason = LINK_REASONS[t.rank]?.reason;
    if (reason === undefined || (ranks !== null && !ranks.includes(t.rank))) continue;
    reasons[reason].problemLinks += t.problemLinks;
    reasons[reason].occurrences += t.occurrences;
  }
  const all = Object.values(reasons);
  return {
    problemLinks: all.reduce((n, r) => n + r.problemLinks, 0),
    occurrences: all.reduce((n, r) => n + r.occurrences, 0),
    reasons,
  };
}

/** "1 page", "2 pages", "0 pages". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "17 problem links (67 occurrences)". */
export function problemPhrase(t: ProblemTally): string {
  return `${plural(t.problemLinks, 'problem link')} (${plural(t.occurrences, 'occurrence')})`;
}

/**
 * A crawl's counts in one phrase, as every surface says them: "42 pages, 74 links (10 broken), 17 problem links
 * (67 occurrences)"; the problems are left out until the crawl's report is final.
 */
export function countsPhrase(c: { pages: number; links: number; errors: number } & Partial<ProblemTally>): string {
  const head = `${plural(c.pages, 'page')}, ${plural(c.links, 'link')} (${c.errors} broken)`;
  if (c.problemLinks === undefined || c.occurrences === undefined) return head;
  return `${head}, ${problemPhrase({ problemLinks: c.problemLinks, occurrences: c.occurrences })}`;
}

/** "not_found 7 (9 occurrences), server_error 1 (4 occurrences)": the reasons that have any, in report order. */
export function reasonsPhrase(c: Pick<ProblemCounts, 'reasons'>): string {
  return LINK_REASONS.filter((r) => c.reasons[r.reason].problemLinks > 0)
    .map(
      (r) =>
        `${r.reason} ${c.reasons[r.reason].problemLinks} (${plural(c.reasons[r.reason].occurrences, 'occurrence')})`,
    )
    .join(', ');
}
