// The readable report for a terminal: by reason, then by the page the links were found on.
import { REPORT_LIMIT } from '../../../model/limits.js';
import type { LinkReport, ReportLink } from '../../../model/types.js';
import { nothingChecked } from '../fail-on.js';
import { describeSource, REASONS, totalCount, trackingNote } from './shared.js';

const HEADING_NOTE: Partial<Record<string, string>> = { unknown: 'found but not fetched: the crawl stopped early' };

function linkLine(l: ReportLink): string {
  const status = String(l.httpStatus || '—').padStart(3);
  let s = `    ${status}  ${l.url}`;
  if (l.redirectsTo) s += ` → ${l.redirectsTo}`;
  if (l.message) s += `  (${l.message})`;
  if (l.blocked && !l.message.startsWith('blocked')) s += '  [blocked]';
  const source = describeSource(l);
  if (source) s += `  in ${source}`;
  if (l.firstSeen) s += `  since ${l.firstSeen}`;
  return s;
}

export function formatText(r: LinkReport): string {
  const out: string[] = [];
  out.push(`Link report — last full crawl: ${r.lastFullCrawl ?? 'none completed yet (run: svc crawl full)'}`);
  for (const t of r.targets) {
    out.push(
      `  target ${t.host}: track_links ${t.linkTracking}, ${t.walkLinks ? 'walks links' : 'sitemap pages only'}${t.lastCrawlError ? `; the latest crawl could not reach it: ${t.lastCrawlError}` : ''}`,
    );
  }
  for (const note of r.targets.map(trackingNote)) if (note) out.push(`  note: ${note}`);
  let shown = 0;
  for (const reason of REASONS) {
    const s = r[reason.section];
    const note = HEADING_NOTE[reason.reason];
    out.push('', `${reason.title}${note ? ` (${note})` : ''} — ${s.count} link${s.count === 1 ? '' : 's'}`);
    let shownHere = 0;
    for (const p of s.pages) {
      out.push(`  on ${p.url}`);
      for (const l of p.links) {
        shownHere++;
        out.push(linkLine(l));
      }
    }
    shown += shownHere;
    if (shownHere < s.count) out.push(`  … ${s.count - shownHere} more not shown (over the limit)`);
  }
  out.push('');
  const total = totalCount(r);
  const nothing = nothingChecked(r);
  if (nothing) out.push(`No report: ${nothing}.`);
  else if (total === 0) out.push('No problem links found.');
  else if (r.truncated)
    out.push(
      `Showing ${shown} of ${total} problem links (truncated: raise --limit up to ${REPORT_LIMIT.max}, or use --target).`,
    );
  else out.push(`${total} problem link${total === 1 ? '' : 's'}.`);
  return `${out.join('\n')}\n`;
}
