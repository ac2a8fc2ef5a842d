// The readable report for a terminal: the counts first, then the problem links by link (the ones on the most pages
// first, each with a few of its pages and "and N more"), then by page; times short. A site with a missing favicon
// on 243 pages reads as one line with its page count, not 243 blocks.
import { REPORT_LIMIT } from '../../../model/limits.js';
import { plural, problemPhrase } from '../../../model/counts.js';
import type { LinkReport, ReportLink } from '../../../model/types.js';
import { nothingChecked } from '../fail-on.js';
import { describeSource, reasonInfo, REASONS, reportRows, totalCount, trackingNote } from './shared.js';

/** Problem links listed by link, at most; the rest are counted in one line. */
export const TEXT_TOP_LINKS = 20;
/** Pages named under each link, at most; the rest are "and N more". */
export const TEXT_PAGES_PER_LINK = 3;

/** "2026-11-27 20:29 UTC": the minute is enough for a person. */
export function shortTime(iso: string): string {
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

function linkLine(l: ReportLink): string {
  const status = String(l.httpStatus || '—').padStart(3);
  let s = `    ${status}  ${l.url}`;
  if (l.redirectsTo) s += ` → ${l.redirectsTo}`;
  if (l.message) s += `  (${l.message})`;
  if (l.blocked && !l.message.startsWith('blocked')) s += '  [blocked]';
  const source = describeSource(l);
  if (source) s += `  in ${source}`;
  if (l.firstSeen) s += `  since ${shortTime(l.firstSeen)}`;
  return s;
}

/** The problem links on the most pages, with their full page counts and a few of the pages the report lists. */
function byLink(r: LinkReport, out: string[]): void {
  const rows = reportRows(r);
  const pagesOf = new Map<string, string[]>();
  for (const row of rows) {
    const list = pagesOf.get(row.link.url) ?? [];
    list.push(row.page);
    pagesOf.set(row.link.url, list);
  }
  const top = r.topLinks.slice(0, TEXT_TOP_LINKS);
  out.push('', 'Problem links, most pages first:');
  for (const l of top) {
    const info = reasonInfo(l.reason);
    out.push(`  ${String(l.httpStatus || '—').padStart(3)}  ${l.url}  ${info.title} · on ${plural(l.pages, 'page')}`);
    const named = (pagesOf.get(l.url) ?? []).slice(0, TEXT_PAGES_PER_LINK);
    const more = l.pages - named.length;
    if (named.length) out.push(`         ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`);
  }
  const rest = r.counts.problemLinks - top.length;
  if (rest > 0) out.push(`  and ${plural(rest, 'more problem link')} (--format html or json lists them all)`);
}

/** Then by page: each reason, the pages and their links, as the report lists them. */
function byPage(r: LinkReport, out: string[]): number {
  out.push('', 'By page:');
  let shown = 0;
  for (const reason of REASONS) {
    const s = r[reason.section];
    if (!s.count) continue;
    out.push('', `${reason.title} — ${plural(s.count, 'occurrence')}`);
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
  return shown;
}

export function formatText(r: LinkReport): string {
  const out: string[] = [];
  out.push(
    `Link report — last full crawl: ${r.lastFullCrawl ? shortTime(r.lastFullCrawl) : 'none completed yet (run: svc crawl full)'}`,
  );
  for (const t of r.targets) {
    out.push(
      `  target ${t.host}: track_links ${t.linkTracking}, ${t.walkLinks ? 'walks links' : 'sitemap pages only'}${t.lastCrawlError ? `; the latest crawl could not reach it: ${t.lastCrawlError}` : ''}`,
    );
  }
  for (const note of r.targets.map(trackingNote)) if (note) out.push(`  note: ${note}`);
  const nothing = nothingChecked(r);
  const total = totalCount(r);
  if (nothing) {
    out.push('', `No report: ${nothing}.`);
    return `${out.join('\n')}\n`;
  }
  if (total === 0) {
    out.push('', `No problem links found on ${plural(r.counts.pages, 'page')}.`);
    return `${out.join('\n')}\n`;
  }
  const perReason = REASONS.filter((x) => r.counts.reasons[x.reason].problemLinks > 0)
    .map((x) => `${x.title.toLowerCase()} ${problemPhrase(r.counts.reasons[x.reason])}`)
    .join('; ');
  out.push('', `${problemPhrase(r.counts)} on ${plural(r.counts.pages, 'page')}: ${perReason}.`);
  byLink(r, out);
  const shown = byPage(r, out);
  if (r.truncated)
    out.push(
      '',
      `Showing ${shown} of ${plural(total, 'occurrence')} by page (truncated: raise --limit up to ${REPORT_LIMIT.max}, or use --target).`,
    );
  return `${out.join('\n')}\n`;
}
