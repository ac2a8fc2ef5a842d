// `svc report [--target H] [--limit N] [--json]`: the link report from the backend (embedded or remote).
import type { LinkReport } from '../model/types.js';
import { intOption, parse, withApp } from './common.js';
import { REPORT_LIMIT } from '../model/limits.js';
import { SECTION_KEYS, type SectionKey } from '../model/link-reasons.js';

const USAGE = `usage: svc report [--target H] [--limit N] [--json] [--config F | --site URL]
  --target H   only pages of this configured target host
  --limit N    most links shown, 1 to 5000 (default 1000); counts are always complete
  --json       print the REST form of /v1/…/link-report
`;

const TITLES: Record<SectionKey, string> = {
  notFound: 'Not found',
  forbidden: 'Forbidden',
  serverError: 'Server error',
  redirect: 'Redirect',
  unknown: 'Unknown (found but not fetched: the crawl stopped early)',
};

/** The readable report: by reason, then by the page the links were found on. */
export function formatReport(r: LinkReport): string {
  const out: string[] = [];
  out.push(`Link report — last full crawl: ${r.lastFullCrawl ?? 'none completed yet (run: svc crawl full)'}`);
  for (const t of r.targets) {
    out.push(`  target ${t.host}: track_links ${t.linkTracking}, ${t.walkLinks ? 'walks links' : 'sitemap pages only'}`);
  }
  for (const t of r.targets.filter((t) => t.linkTracking !== 'all')) {
    out.push(`  note: ${t.host} tracks only links to PDF documents (track_links = ${t.linkTracking}); set track_links to "all" to check every link.`);
  }
  let shown = 0;
  let total = 0;
  for (const key of SECTION_KEYS) {
    const s = r[key];
    total += s.count;
    out.push('', `${TITLES[key]} — ${s.count} link${s.count === 1 ? '' : 's'}`);
    let shownHere = 0;
    for (const p of s.pages) {
      out.push(`  on ${p.url}`);
      for (const l of p.links) {
        shown++;
        shownHere++;
        const status = String(l.httpStatus || '—').padStart(3);
        out.push(`    ${status}  ${l.url}${l.redirectsTo ? ` → ${l.redirectsTo}` : ''}${l.message ? `  (${l.message})` : ''}`);
      }
    }
    if (shownHere < s.count) out.push(`  … ${s.count - shownHere} more not shown (over the limit)`);
  }
  out.push('');
  if (total === 0) out.push('No problem links found.');
  else if (r.truncated) out.push(`Showing ${shown} of ${total} problem links (truncated: raise --limit up to ${REPORT_LIMIT.max}, or use --target).`);
  else out.push(`${total} problem link${total === 1 ? '' : 's'}.`);
  return `${out.join('\n')}\n`;
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { target: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } }, false);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const limit = intOption('limit', values.limit, REPORT_LIMIT.min, REPORT_LIMIT.max) ?? REPORT_LIMIT.default;
  const target = typeof values.target === 'string' ? values.target : undefined;
  await withApp(values, async (app) => {
    const report = await app.backend.linkReport({ target, limit });
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  });
  return 0;
}
