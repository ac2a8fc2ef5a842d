// `--fail-on`: which of the listed reasons the report holds, so CI can fail. Blocked answers (bot or rate-limit
// blocks) never fail. Links a truncated report does not list count as failing: whether they are blocked is not known.
// A report of nothing (no page of any target stored) never passes: an empty report of an unchecked site is no pass.
import type { LinkReason } from '../../model/link-reasons.js';
import { LINK_REASONS } from '../../model/link-reasons.js';
import type { LinkReport } from '../../model/types.js';

export interface Failing {
  reason: LinkReason;
  /** Links of this reason that fail: listed and not blocked, plus those over the limit. */
  links: number;
}

/** Why the report checked nothing (no target has a stored page), or null when it checked something. */
export function nothingChecked(r: LinkReport): string | null {
  if (r.targets.some((t) => t.pages === null || t.pages > 0)) return null;
  if (r.status === 'not_crawled' || !r.targets.length)
    return `not crawled yet: no crawl has stored a page of ${r.targets.map((t) => t.host).join(', ') || 'any target'}`;
  const why = r.targets.map((t) => `${t.host}${t.lastCrawlError ? ` (${t.lastCrawlError})` : ''}`).join(', ');
  return `nothing checked: no page of ${why} is stored`;
}

export function failingReasons(r: LinkReport, failOn: readonly LinkReason[]): Failing[] {
  const out: Failing[] = [];
  for (const { reason, section } of LINK_REASONS) {
    if (!failOn.includes(reason)) continue;
    const s = r[section];
    let listed = 0;
    let failing = 0;
    for (const p of s.pages) {
      for (const l of p.links) {
        listed++;
        if (!l.blocked) failing++;
      }
    }
    failing += Math.max(0, s.count - listed);
    if (failing > 0) out.push({ reason, links: failing });
  }
  return out;
}
