// GitHub-flavoured Markdown: counts per reason, then one table per reason (pull-request comments, job summaries).
import type { LinkReport } from '../../../model/types.js';
import { nothingChecked } from '../fail-on.js';
import { plural } from '../../../model/counts.js';
import { reasonCounts, reasonInfo, reportRows, totalCount, trackingNote } from './shared.js';

/**
 * Text for a table cell, shown as written: every Markdown punctuation character backslash-escaped (so no link,
 * emphasis, HTML or cell break can be injected), line breaks folded to spaces.
 */
export function mdCell(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').replace(/[\\`*_{}[\]()<>#+!|~&]/g, (c) => `\\${c}`);
}

/** Problem links the Markdown report lists by link, at most. */
const MD_TOP_LINKS = 20;

export function formatMarkdown(r: LinkReport): string {
  const rows = reportRows(r);
  const out: string[] = ['# Link report', ''];
  out.push(`Last full crawl: ${mdCell(r.lastFullCrawl ?? 'none completed yet')}`, '');
  for (const note of r.targets.map(trackingNote)) if (note) out.push(`> Note: ${mdCell(note)}`, '');
  const counts = reasonCounts(r);
  out.push('| Reason | Problem links | Occurrences |', '| --- | ---: | ---: |');
  for (const c of counts)
    out.push(`| ${c.reason.title} | ${r.counts.reasons[c.reason.reason].problemLinks} | ${c.count} |`);
  out.push(
    `| **Total** (${plural(r.counts.pages, 'page')}) | **${r.counts.problemLinks}** | **${r.counts.occurrences}** |`,
  );
  // The links on the most pages first, counted over the whole report (not only the rows below).
  if (r.topLinks.length) {
    out.push(
      '',
      '## Problem links, most pages first',
      '',
      '| Link | Reason | Status | Pages |',
      '| --- | --- | ---: | ---: |',
    );
    for (const l of r.topLinks.slice(0, MD_TOP_LINKS))
      out.push(`| ${mdCell(l.url)} | ${reasonInfo(l.reason).title} | ${l.httpStatus || '—'} | ${l.pages} |`);
    const rest = r.counts.problemLinks - Math.min(r.topLinks.length, MD_TOP_LINKS);
    if (rest > 0) out.push('', `… and ${plural(rest, 'more problem link')}.`);
  }
  // Columns the report has data for (element and text come with newer crawls).
  const hasSource = rows.some((x) => x.link.element || x.link.text);
  for (const c of counts) {
    if (c.count === 0) continue;
    out.push('', `## ${c.reason.title} (${c.count})`, '');
    out.push(hasSource ? '| Page | Link | Status | Message | Element | Text |' : '| Page | Link | Status | Message |');
    out.push(hasSource ? '| --- | --- | ---: | --- | --- | --- |' : '| --- | --- | ---: | --- |');
    for (const { page, link: l } of rows.filter((x) => x.reason.reason === c.reason.reason)) {
      let message = l.message;
      if (l.redirectsTo && !message.includes(l.redirectsTo)) message = `${message} → ${l.redirectsTo}`.trim();
      if (l.blocked && !message.startsWith('blocked')) message = `blocked: ${message}`;
      if (l.firstSeen) message += ` (since ${l.firstSeen})`;
      const cells = [mdCell(page), mdCell(l.url), l.httpStatus ? String(l.httpStatus) : '—', mdCell(message)];
      if (hasSource) cells.push(l.element ? mdCell(l.element) : '', l.text ? mdCell(l.text) : '');
      out.push(`| ${cells.join(' | ')} |`);
    }
    if (c.shown < c.count) out.push('', `… ${c.count - c.shown} more not shown (over the limit).`);
  }
  const nothing = nothingChecked(r);
  if (nothing) out.push('', `No report: ${mdCell(nothing)}.`);
  else if (totalCount(r) === 0) out.push('', 'No problem links found.');
  return `${out.join('\n')}\n`;
}
