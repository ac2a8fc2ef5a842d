// `--fail-on`: which of the listed reasons the report holds, so CI can fail. Blocked answers (bot or rate-limit
// blocks) never fail. Links a truncated report does not list count as failing: whether they are blocked is not known.
import type { LinkReason } from '../../model/link-reasons.js';
import { LINK_REASONS } from '../../model/link-reasons.js';
import type { LinkReport } from '../../model/types.js';

export interface Failing {
  reason: LinkReason;
  /** Links of this reason that fail: listed and not blocked, plus those over the limit. */
  links: number;
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
